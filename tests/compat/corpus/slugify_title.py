# args: {"title": "  Héllo, World! -- Ça va?  "}
import re
import unicodedata


def slugify_title(title: str) -> str:
    """Make a URL slug from a title."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)
