# args: {"name": "Ana", "email": "ana@example.com"}
class Profile:
    def __init__(self, name, email):
        self.name = name
        self.email = email
        self._verified = False

    def verify(self):
        self._verified = True
        return self

    def to_dict(self):
        return {k.lstrip("_"): v for k, v in self.__dict__.items()}


def vars_profile(name: str, email: str) -> dict:
    """Build a profile."""
    profile = Profile(name, email).verify()
    return {
        "dict": profile.to_dict(),
        "vars": sorted(vars(profile)),
        "class": type(profile).__name__,
        "qualname": Profile.__qualname__,
        "doc": Profile.__doc__,
    }
