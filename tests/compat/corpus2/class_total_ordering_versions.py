# args: {"versions": ["1.10.0", "1.2.3", "1.2.10", "0.9", "1.2.3-rc1", "2.0"]}
import functools


@functools.total_ordering
class Version:
    def __init__(self, text: str) -> None:
        core, _, self.pre = text.partition("-")
        self.parts = tuple(int(p) for p in core.split("."))
        self.text = text

    def _key(self):
        padded = self.parts + (0,) * (3 - len(self.parts))
        return padded, self.pre == "", self.pre

    def __eq__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Version({self.text!r})"


def class_total_ordering_versions(versions: list[str]) -> dict:
    """Sort semantic versions with a total_ordering class."""
    vs = [Version(v) for v in versions]
    try:
        vs[0] < "1.0"
        mixed = "compared"
    except TypeError as error:
        mixed = str(error)
    return {
        "sorted": [v.text for v in sorted(vs)],
        "max": repr(max(vs)),
        "ge": Version("1.2") >= Version("1.2.0"),
        "gt": Version("1.2.3") > Version("1.2.3-rc1"),
        "le": Version("2.0") <= Version("1.9"),
        "ne": Version("1") != Version("1.0.0"),
        "unique": len(set(vs + [Version("2.0.0")])),
        "mixed": mixed,
    }
