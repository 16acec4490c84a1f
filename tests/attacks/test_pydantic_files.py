"""Attacks through pydantic's deprecated loaders (issue 31): ``parse_file`` on a tool's own model
reads the call's scratch directory, never the host's files, and ``allow_pickle=True`` (whose
``pickle.loads`` calls any function the bytes name, ``builtins.eval`` with the real builtins
among them) is refused, however the pickle is asked for."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import attack

MODEL = """
from pydantic import BaseModel
from pathlib import Path


class Cfg(BaseModel):
    name: str


PAYLOAD = b"cbuiltins\\neval\\n(S'{\\"name\\": str(type(open))}'\\ntR."

"""

PICKLES = {
    "content-type": "Cfg.parse_raw(PAYLOAD, content_type='application/pickle', allow_pickle=True)",
    "proto": "Cfg.parse_raw(PAYLOAD, proto='pickle', allow_pickle=True)",
    "text": "Cfg.parse_raw(PAYLOAD.decode(), proto='pickle', allow_pickle=True)",
    "file-suffix": "Path('c.pkl').write_bytes(PAYLOAD) and Cfg.parse_file('c.pkl', allow_pickle=True)",
    "file-content-type": (
        "Path('c.bin').write_bytes(PAYLOAD) and Cfg.parse_file('c.bin', content_type='pickle', allow_pickle=True)"
    ),
}


@pytest.mark.parametrize("load", PICKLES.values(), ids=PICKLES.keys())
def test_a_pickle_never_loads(rt: Runtime, load: str) -> None:
    result = attack(rt, MODEL + f"def tool():\n    return {load}.name\n")
    assert not result.success
    assert result.error.kind == "policy"
    assert "unpickling a class or function is not allowed" in result.error.message


HOST_FILES = ("/proc/self/status", "/proc/self/cmdline", "/etc/passwd", "/usr/lib/os-release", __file__)


@pytest.mark.parametrize("path", HOST_FILES)
def test_parse_file_reads_no_host_file(rt: Runtime, path: str) -> None:
    result = attack(
        rt, MODEL + f"def tool():\n    return Cfg.parse_file({path!r}, content_type='json').name\n"
    )
    assert not result.success
    assert "FileNotFoundError" in result.error.message


def test_parse_file_reads_the_scratch_directory(rt: Runtime) -> None:
    source = (
        MODEL
        + "def tool():\n    Path('c.json').write_text('{\"name\": \"mine\"}')\n    return Cfg.parse_file('c.json').name\n"
    )
    assert attack(rt, source).output == "mine"
