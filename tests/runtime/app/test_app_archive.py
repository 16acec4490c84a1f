"""Export archives: byte-identical round trips through unpack/pack, edits applied in place, and
crafted bad archives refused before anything is written."""

from __future__ import annotations

import io
import stat
import zipfile
from contextlib import nullcontext
from pathlib import Path

import pytest

from runtime.app import ArchiveLimits, load_app, pack, unpack
from runtime.app._archive import read_archive
from runtime.app._zipraw import parse
from sandbox.common.errors import BadArchive, InvalidApp
from tests.conftest import SAMPLES

APP = SAMPLES / "apps" / "Customer_Service"
TOOL = "tools/get_customer/python_function/python_code.py"


class Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek back in, so it writes data descriptors (as streaming exporters do)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, chunk: bytes) -> int:  # type: ignore[override]
        self.data += chunk
        return len(chunk)


def foreign_export(root: str = "Customer_Service") -> bytes:
    """The sample as another zip writer lays it out: directory entries, mixed methods and levels,
    data descriptors, extra fields, old timestamps, an archive comment."""
    stream = Unseekable()
    with zipfile.ZipFile(stream, "w") as archive:
        archive.writestr(zipfile.ZipInfo(f"{root}/", (2025, 1, 2, 3, 4, 6)), b"")
        for number, path in enumerate(sorted(p for p in APP.rglob("*") if p.is_file())):
            info = zipfile.ZipInfo(
                f"{root}/{path.relative_to(APP).as_posix()}", (2025, 6, 7, 8, 9, 10 + number)
            )
            info.compress_type = zipfile.ZIP_STORED if path.suffix == ".txt" else zipfile.ZIP_DEFLATED
            info.external_attr = 0o100600 << 16
            info.extra = b"\x75\x78\x0b\x00\x01\x04\xe8\x03\x00\x00\x04\xe8\x03\x00\x00"  # unix uid/gid
            archive.writestr(info, path.read_bytes(), compresslevel=9)
        archive.comment = b"exported for a test"
    return bytes(stream.data)


def test_a_round_trip_without_edits_gives_the_same_bytes(tmp_path: Path) -> None:
    exported = tmp_path / "export.zip"
    exported.write_bytes(foreign_export())
    unpack(exported, tmp_path / "app")
    assert (tmp_path / "app" / TOOL).read_bytes() == (APP / TOOL).read_bytes()
    assert pack(tmp_path / "app") == exported.read_bytes()


def test_a_folder_never_unpacked_packs_and_round_trips(tmp_path: Path) -> None:
    first = pack(APP)
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert "Customer_Service/app.json" in names and "Customer_Service/" + TOOL in names
    (tmp_path / "a.zip").write_bytes(first)
    unpack(tmp_path / "a.zip", tmp_path / "app")
    assert pack(tmp_path / "app") == first
    assert load_app(tmp_path / "a.zip").tools.keys() == load_app(APP).tools.keys()


def test_an_edit_changes_only_its_entry(tmp_path: Path) -> None:
    original = foreign_export()
    (tmp_path / "export.zip").write_bytes(original)
    unpack(tmp_path / "export.zip", tmp_path / "app")
    code = tmp_path / "app" / TOOL
    code.write_text(code.read_text().replace("no customer with ID", "unknown customer"))
    (tmp_path / "app" / "tools/get_customer/README.md").write_text("notes\n")
    (tmp_path / "app" / "global_instruction.txt").unlink()
    (tmp_path / "app" / "app.json").write_text(
        (tmp_path / "app" / "app.json")
        .read_text()
        .replace('"globalInstruction": "global_instruction.txt",', "")
    )
    repacked = pack(tmp_path / "app")
    before, after = zipfile.ZipFile(io.BytesIO(original)), zipfile.ZipFile(io.BytesIO(repacked))
    assert after.testzip() is None and after.comment == before.comment
    edited = "Customer_Service/" + TOOL
    assert b"unknown customer" in after.read(edited)
    assert after.getinfo(edited).date_time == before.getinfo(edited).date_time
    assert after.getinfo(edited).external_attr == before.getinfo(edited).external_attr
    assert after.getinfo(edited).extra == before.getinfo(edited).extra
    untouched = {e.name: e.local for e in parse(original).entries if not e.name.endswith(("app.json", TOOL))}
    kept = {e.name: e.local for e in parse(repacked).entries}
    assert all(kept[name] == local for name, local in untouched.items() if not name.endswith(".txt"))
    assert "Customer_Service/global_instruction.txt" not in kept
    assert after.namelist()[-1] == "Customer_Service/tools/get_customer/README.md"
    assert [n for n in after.namelist() if n in before.namelist()] == [
        n for n in before.namelist() if n != "Customer_Service/global_instruction.txt"
    ]


def test_pack_refuses_an_app_that_does_not_load(tmp_path: Path) -> None:
    (tmp_path / "export.zip").write_bytes(foreign_export())
    unpack(tmp_path / "export.zip", tmp_path / "app")
    (tmp_path / "app" / TOOL).unlink()
    with pytest.raises(InvalidApp, match="get_customer.json: pythonFunction.pythonCode names"):
        pack(tmp_path / "app")


def crafted(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, content in entries:
            archive.writestr(info, content)
    return buffer.getvalue()


def link(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


APP_JSON = b'{"displayName": "A"}'
BAD = {
    "absolute": ([("/etc/cron.d/evil", b"x")], "absolute"),
    "dotdot": ([("A/app.json", APP_JSON), ("A/../../evil.py", b"x")], "'..'"),
    "backslash": ([("A/app.json", APP_JSON), ("A\\..\\evil.py", b"x")], "malformed"),
    "drive": ([("C:/evil.py", b"x")], "absolute"),
    "symlink": (
        [("A/app.json", APP_JSON), link("A/tools/t/python_function/python_code.py", "/etc/passwd")],
        "symbolic",
    ),
    "flat": ([("app.json", APP_JSON)], "not in a root folder"),
    "two roots": ([("A/app.json", APP_JSON), ("B/app.json", APP_JSON)], "one root folder"),
    "duplicate": ([("A/app.json", APP_JSON), ("A/app.json", b"{}")], "twice"),
    "not a zip": (None, "not a zip"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_archive_is_refused_and_nothing_is_written(tmp_path: Path, case: str) -> None:
    entries, message = BAD[case]
    archive = tmp_path / "in.zip"
    if entries is None:
        archive.write_bytes(b"PK\x03\x04 not really")
    else:
        with pytest.warns(UserWarning) if case == "duplicate" else nullcontext():
            archive.write_bytes(crafted(entries))
    with pytest.raises(BadArchive, match=message):
        unpack(archive, tmp_path / "out")
    with pytest.raises(BadArchive, match=message):
        load_app(archive)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["in.zip"]


def test_a_zip_bomb_stops_at_the_size_cap(tmp_path: Path) -> None:
    bomb = crafted([("A/app.json", APP_JSON), ("A/bomb.txt", bytes(80 << 20))])
    assert len(bomb) < 200_000
    (tmp_path / "bomb.zip").write_bytes(bomb)
    with pytest.raises(BadArchive, match="more than 67108864 bytes once decompressed"):
        unpack(tmp_path / "bomb.zip", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_header_that_understates_its_size_is_caught(tmp_path: Path) -> None:
    honest = crafted([("A/app.json", APP_JSON), ("A/big.txt", bytes(1 << 20))])
    # the central directory says 1 KiB where 1 MiB follows (local header and central record)
    lying = honest.replace((1 << 20).to_bytes(4, "little"), (1 << 10).to_bytes(4, "little"))
    with pytest.raises(BadArchive):
        read_archive(lying, ArchiveLimits(max_bytes=4 << 10))


def test_too_many_entries_are_refused() -> None:
    many = crafted([("A/app.json", APP_JSON), *((f"A/f{i}.txt", b"") for i in range(20))])
    with pytest.raises(BadArchive, match="21 entries: more than the 10 allowed"):
        read_archive(many, ArchiveLimits(max_entries=10))


def test_unpack_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "a.zip").write_bytes(pack(APP))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(BadArchive, match="not an empty folder"):
        unpack(tmp_path / "a.zip", tmp_path / "out")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["keep.txt"]


def test_unpack_refuses_an_archive_holding_its_own_work_folder(tmp_path: Path) -> None:
    (tmp_path / "in.zip").write_bytes(crafted([("A/app.json", APP_JSON), ("A/.toolpen/export.zip", b"x")]))
    with pytest.raises(BadArchive, match="holds a .toolpen/ folder"):
        unpack(tmp_path / "in.zip", tmp_path / "out")
    assert not (tmp_path / "out").exists()
