"""Rewriting a zip archive entry by entry, copying the bytes of every entry that did not change.

``zipfile`` can only recompress, and another deflate implementation (the console's) gives
other bytes; so the records are handled here: an unchanged entry keeps its local header, data
and data descriptor byte for byte, and its central record changes only in the offset it
holds. Rewriting every entry unchanged gives the same archive, bytes included. A changed
entry keeps its name, method, timestamp, attributes and extra fields; only its data, CRC and
sizes are new. Zip64 and multi-disk archives are refused (``bad_archive``): exports are small.
"""

from __future__ import annotations

import struct
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from sandbox.common.errors import BadArchive

_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_END = b"PK\x05\x06"
_CENTRAL_FORMAT = "<4sHHHHHHIIIHHHHHII"
_LOCAL_FORMAT = "<4sHHHHHIIIHH"
_END_FORMAT = "<4sHHHHIIH"
_UTF8_FLAG = 0x800
_DESCRIPTOR_FLAG = 0x8
STORED, DEFLATED = 0, 8


@dataclass(frozen=True)
class RawEntry:
    """One entry as stored: its local part (header, data, descriptor) and its central record."""

    name: str
    local: bytes
    central: bytes

    @property
    def method(self) -> int:
        return struct.unpack_from("<H", self.central, 10)[0]


@dataclass(frozen=True)
class RawArchive:
    """An archive's entries in the order of their data, and its central directory order."""

    entries: list[RawEntry]
    central_order: list[str]
    comment: bytes


def parse(data: bytes) -> RawArchive:
    """The raw entries of a (non-zip64, single-disk) archive."""
    end = data.rfind(_END, max(0, len(data) - 65_557))
    if end < 0 or len(data) < end + 22:
        raise BadArchive("not a zip archive: no end of central directory")
    _, disk, cd_disk, _, count, cd_size, cd_offset, comment_size = struct.unpack_from(_END_FORMAT, data, end)
    if disk or cd_disk or count == 0xFFFF or cd_offset == 0xFFFFFFFF:
        raise BadArchive("zip64 and multi-disk archives are not supported")
    if cd_offset + cd_size != end:
        raise BadArchive("unexpected bytes between the central directory and its end record")
    records: list[tuple[int, str, bytes]] = []
    position = cd_offset
    for _ in range(count):
        if data[position : position + 4] != _CENTRAL:
            raise BadArchive("a broken central directory")
        fields = struct.unpack_from(_CENTRAL_FORMAT, data, position)
        name_size, extra_size, comment = fields[10], fields[11], fields[12]
        raw_name = data[position + 46 : position + 46 + name_size]
        name = raw_name.decode("utf-8" if fields[3] & _UTF8_FLAG else "cp437")
        size = 46 + name_size + extra_size + comment
        records.append((fields[16], name, data[position : position + size]))
        position += size
    starts = sorted(offset for offset, _, _ in records)
    if starts and starts[0] != 0:
        raise BadArchive("bytes before the first entry (a self-extracting archive?)")
    ends = dict(zip(starts, [*starts[1:], cd_offset], strict=True))
    entries = [
        RawEntry(name, data[offset : ends[offset]], central) for offset, name, central in sorted(records)
    ]
    comment_bytes = data[end + 22 : end + 22 + comment_size]
    return RawArchive(entries, [name for _, name, _ in records], comment_bytes)


def _compressed(content: bytes, method: int, name: str) -> bytes:
    if method == STORED:
        return content
    if method == DEFLATED:
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        return compressor.compress(content) + compressor.flush()
    raise BadArchive(f"entry {name!r}: cannot rewrite compression method {method}")


def _local_header(central: bytes, name: bytes, crc: int, data_size: int, size: int) -> bytes:
    fields = struct.unpack_from(_CENTRAL_FORMAT, central)
    flags = fields[3] & ~_DESCRIPTOR_FLAG
    return (
        struct.pack(
            _LOCAL_FORMAT,
            _LOCAL,
            fields[2],
            flags,
            fields[4],
            fields[5],
            fields[6],
            crc,
            data_size,
            size,
            len(name),
            0,
        )
        + name
    )


def _changed(entry: RawEntry, content: bytes) -> RawEntry:
    """``entry`` holding ``content``: same name, method, time, attributes; new data, CRC and sizes."""
    fields = struct.unpack_from(_CENTRAL_FORMAT, entry.central)
    name = entry.central[46 : 46 + fields[10]]
    data = _compressed(content, fields[4], entry.name)
    crc = zlib.crc32(content)
    central = bytearray(entry.central)
    struct.pack_into("<H", central, 8, fields[3] & ~_DESCRIPTOR_FLAG)
    struct.pack_into("<III", central, 16, crc, len(data), len(content))
    return RawEntry(
        entry.name, _local_header(bytes(central), name, crc, len(data), len(content)) + data, bytes(central)
    )


def new_entry(name: str, content: bytes, mtime: float) -> RawEntry:
    """A deflated entry for a file that the original archive did not hold."""
    encoded = name.encode("utf-8")
    flags = 0 if name.isascii() else _UTF8_FLAG
    moment = time.localtime(max(mtime, 315_532_800))  # zip times start in 1980
    dos_time = moment.tm_hour << 11 | moment.tm_min << 5 | moment.tm_sec // 2
    dos_date = (moment.tm_year - 1980) << 9 | moment.tm_mon << 5 | moment.tm_mday
    is_dir = name.endswith("/")
    method = STORED if is_dir else DEFLATED
    mode = 0o40755 if is_dir else 0o100644
    central = struct.pack(
        _CENTRAL_FORMAT, _CENTRAL, 3 << 8 | 20, 20, flags, method, dos_time, dos_date, 0, 0, 0,
        len(encoded), 0, 0, 0, 0x10 if is_dir else 0, mode << 16, 0,
    ) + encoded  # fmt: skip
    return _changed(RawEntry(name, b"", central), content)


def build(archive: RawArchive, contents: Mapping[str, bytes | None], added: list[RawEntry]) -> bytes:
    """The archive with each entry's new content (``None``: unchanged; a missing name: dropped), then ``added``."""
    out = bytearray()
    centrals: dict[str, bytes] = {}
    kept = [entry for entry in archive.entries if entry.name in contents]
    changed = [_changed(entry, new) if (new := contents[entry.name]) is not None else entry for entry in kept]
    for entry in [*changed, *added]:
        central = bytearray(entry.central)
        struct.pack_into("<I", central, 42, len(out))
        centrals[entry.name] = bytes(central)
        out += entry.local
    order = [name for name in archive.central_order if name in centrals] + [entry.name for entry in added]
    cd_offset = len(out)
    for name in order:
        out += centrals[name]
    count = len(order)
    out += struct.pack(
        _END_FORMAT, _END, 0, 0, count, count, len(out) - cd_offset, cd_offset, len(archive.comment)
    )
    return bytes(out + archive.comment)
