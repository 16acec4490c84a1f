# args: {"kind": "csv", "rows": [["a", 1], ["b", 2]]}
# refused: a metaclass is a class factory past the sandbox's rules
from abc import ABCMeta, abstractmethod


class Exporter(metaclass=ABCMeta):
    """Base exporter, written the pre-ABC way."""

    @abstractmethod
    def render(self, rows): ...

    def export(self, rows):
        return {"format": type(self).__name__.lower(), "body": self.render(rows)}


class Csv(Exporter):
    def render(self, rows):
        return "\n".join(",".join(map(str, row)) for row in rows)


class Markdown(Exporter):
    def render(self, rows):
        return "\n".join(f"| {a} | {b} |" for a, b in rows)


def abcmeta_metaclass_keyword(kind: str, rows: list) -> dict:
    """Abstract base classes declared with metaclass=ABCMeta."""
    exporter = {"csv": Csv, "md": Markdown}[kind]()
    try:
        Exporter()
        abstract = None
    except TypeError as error:
        abstract = str(error)
    return {**exporter.export(rows), "abstract": abstract, "is_exporter": isinstance(exporter, Exporter)}
