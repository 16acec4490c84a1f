# args: {"address": "  123   main st.,  apt 4b ,SPRINGFIELD  , il 62704 "}
import re

ABBREVIATIONS = {"st": "Street", "ave": "Avenue", "rd": "Road", "apt": "Apartment"}


def _expand(word):
    key = word.lower().rstrip(".")
    return ABBREVIATIONS.get(key, word)


def normalize_address(address: str) -> dict:
    """Normalize a US address."""
    parts = [re.sub(r"\s+", " ", p).strip() for p in address.split(",")]
    street = " ".join(_expand(w).title() if not w[0].isdigit() else w for w in parts[0].split())
    unit = " ".join(_expand(w) if w.isalpha() else w.upper() for w in parts[1].split())
    city = parts[2].title()
    state, zipcode = parts[3].split()
    return {"line1": street, "line2": unit, "city": city, "state": state.upper(), "zip": zipcode}
