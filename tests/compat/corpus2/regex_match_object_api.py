# args: {"text": "Call +44 20 7946 0958 or +1 (415) 555-0132 today"}
import re

PHONE = re.compile(r"\+(?P<country>\d{1,3})\s*(?P<rest>[\d\s()-]{7,})\d", re.IGNORECASE)


def regex_match_object_api(text: str) -> list:
    """Find international phone numbers and describe each match."""
    found = []
    for match in PHONE.finditer(text):
        found.append(
            {
                "match": match.group(0),
                "span": list(match.span()),
                "start_country": match.start("country"),
                "country": match["country"],
                "digits": re.sub(r"\D", "", match.group()),
                "lastgroup": match.lastgroup,
                "expand": match.expand(r"\g<country>/\g<rest>").strip(),
            }
        )
    return found + [{"pattern_flags": PHONE.flags & re.IGNORECASE != 0, "pattern": PHONE.pattern[:6]}]
