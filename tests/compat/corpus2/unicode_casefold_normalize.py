# args: {"names": ["Straße", "STRASSE", "Ångström", "Ångström", "ﬁle", "Crème Brûlée"]}
import unicodedata


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def unicode_casefold_normalize(names: list[str]) -> dict:
    """Compare names the way a search box should."""
    keys = [strip_accents(name).casefold() for name in names]
    return {
        "keys": keys,
        "straße_equal": names[0].casefold() == names[1].casefold(),
        "lower_equal": names[0].lower() == names[1].lower(),
        "nfc_equal": unicodedata.normalize("NFC", names[2]) == unicodedata.normalize("NFC", names[3]),
        "raw_equal": names[2] == names[3],
        "lengths": [len(n) for n in names],
        "categories": [unicodedata.category(ch) for ch in "a1 É-"],
        "name": unicodedata.name("é"),
        "lookup": unicodedata.lookup("SNOWMAN"),
        "east_asian": unicodedata.east_asian_width("Ｗ"),
        "upper_sharp_s": "ß".upper(),
    }
