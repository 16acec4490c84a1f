# args: {"tracks": ["Intro", "Song A", "Song B", "Interlude", "Outro"]}
class Playlist:
    def __init__(self, name, tracks):
        self.name = name
        self._tracks = list(tracks)

    def __len__(self):
        return len(self._tracks)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Playlist(f"{self.name}[{index.start}:{index.stop}]", self._tracks[index])
        return self._tracks[index]

    def __iter__(self):
        return iter(self._tracks)

    def __contains__(self, title):
        return title.lower() in (t.lower() for t in self._tracks)

    def __reversed__(self):
        return reversed(self._tracks)

    def __bool__(self):
        return bool(self._tracks)

    def __add__(self, other):
        return Playlist(f"{self.name}+{other.name}", self._tracks + other._tracks)

    def __repr__(self):
        return f"Playlist({self.name!r}, {len(self)} tracks)"


class LegacySeq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 10


def class_sequence_protocol(tracks: list[str]) -> dict:
    """A container implementing the sequence protocol."""
    p = Playlist("mix", tracks)
    middle = p[1:4]
    return {
        "len": len(p),
        "first_last": [p[0], p[-1]],
        "middle": repr(middle),
        "middle_items": list(middle),
        "contains": ["song a" in p, "missing" in p],
        "reversed": list(reversed(p))[:2],
        "bool": [bool(p), bool(Playlist("empty", []))],
        "sorted": sorted(p, key=len)[:2],
        "enumerate": list(enumerate(p, start=1))[:2],
        "zip": list(zip(p, range(2))),
        "concat": repr(p + middle),
        "legacy_iter": list(LegacySeq()),
        "legacy_in": 20 in LegacySeq(),
        "unpack": [*middle],
        "max": max(p),
    }
