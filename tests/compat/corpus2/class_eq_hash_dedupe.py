# args: {"emails": ["Ana@x.com", "ana@X.com", "bo@y.org", "BO@y.org ", "cy@z.net"]}
class Contact:
    def __init__(self, email):
        self.raw = email
        self.key = email.strip().lower()

    def __eq__(self, other):
        if isinstance(other, Contact):
            return self.key == other.key
        if isinstance(other, str):
            return self.key == other.strip().lower()
        return NotImplemented

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"<Contact {self.key}>"


class NoHash:
    def __eq__(self, other):
        return True


def class_eq_hash_dedupe(emails: list[str]) -> dict:
    """Deduplicate contacts with __eq__ and __hash__."""
    contacts = [Contact(e) for e in emails]
    unique = list(dict.fromkeys(contacts))
    try:
        {NoHash()}
        unhashable = None
    except TypeError as error:
        unhashable = str(error)
    return {
        "unique": [repr(c) for c in unique],
        "count": len(set(contacts)),
        "eq_str": contacts[0] == "ANA@x.com",
        "in_list": "bo@y.org" in contacts,
        "index": contacts.index(Contact("cy@z.net")),
        "unhashable": unhashable,
        "ne_int": contacts[0] != 5,
    }
