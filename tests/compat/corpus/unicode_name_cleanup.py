# args: {"names": ["  José\u00a0Álvarez ", "ZOË   smith", "Nguyễn Văn A"]}
import unicodedata


def _strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def unicode_name_cleanup(names: list[str]) -> list[dict]:
    """Clean customer names."""
    out = []
    for raw in names:
        clean = " ".join(raw.split()).title()
        out.append({"display": clean, "ascii": _strip_accents(clean), "casefold": clean.casefold()})
    return out
