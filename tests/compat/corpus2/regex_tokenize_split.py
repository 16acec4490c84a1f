# args: {"expression": "price * (1 + tax_rate) - discount/2"}
import re

TOKEN = re.compile(r"\s*(?:(\d+\.?\d*)|([A-Za-z_]\w*)|(.))")


def regex_tokenize_split(expression: str) -> dict:
    """Tokenize an arithmetic expression."""
    tokens = []
    for number, name, op in TOKEN.findall(expression):
        if number:
            tokens.append(("num", number))
        elif name:
            tokens.append(("name", name))
        elif op.strip():
            tokens.append(("op", op))
    return {
        "tokens": tokens,
        "split": re.split(r"\s*([*/+-])\s*", expression),
        "names": sorted(set(re.findall(r"[A-Za-z_]\w*", expression))),
        "is_identifier": [bool(re.fullmatch(r"[A-Za-z_]\w*", t)) for _, t in tokens[:3]],
        "escaped": re.escape("1+1=2?"),
        "subn": re.subn(r"\s+", " ", "a   b \t c"),
    }
