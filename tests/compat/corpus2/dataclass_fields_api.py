# args: {"title": "Quarterly report", "tags": ["finance", "q3"]}
from dataclasses import MISSING, asdict, astuple, dataclass, field, fields, replace


@dataclass
class Document:
    title: str
    tags: list[str] = field(default_factory=list)
    pages: int = 0
    secret: str = field(default="", repr=False, compare=False)
    revision: int = field(default=1, metadata={"unit": "count"})


def dataclass_fields_api(title: str, tags: list[str]) -> dict:
    """Create, copy and compare dataclass instances."""
    doc = Document(title, tags, secret="s3")
    other = replace(doc, pages=12)
    empty = Document("x")
    empty.tags.append("mutable default is per instance")
    return {
        "repr": repr(doc),
        "asdict": asdict(other),
        "astuple": list(astuple(doc)),
        "fields": [(f.name, None if f.default is MISSING else f.default) for f in fields(Document)],
        "field_types": [f.type if isinstance(f.type, str) else f.type.__name__ for f in fields(doc)][2:],
        "metadata": fields(Document)[-1].metadata["unit"],
        "equal_ignoring_secret": doc == Document(title, tags, secret="other"),
        "fresh_default": Document("y").tags,
        "changed": other.pages != doc.pages,
    }
