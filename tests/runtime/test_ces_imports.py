"""Imports as CES allows them: under walls="process" the whole standard library, pydantic, numpy and
protobuf; under both walls the vetted views (numpy's and protobuf's included), and a refused module
says so and names --walls process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime
from sandbox.common.errors import PolicyViolation
from sandbox.common.limits import Limits

pytest.importorskip("numpy")
pytest.importorskip("google.protobuf")

CES_IMPORTS = '''
import csv
import io
import sqlite3
import numpy as np
from google.protobuf import json_format, struct_pb2


def ces_imports(values: list[float]) -> dict:
    """Uses what CES lets tools import."""
    message = struct_pb2.Struct()
    message.update({"mean": float(np.mean(np.array(values)))})
    rows = io.StringIO()
    csv.writer(rows).writerow(values)
    return {"proto": json_format.MessageToDict(message), "csv": rows.getvalue().strip(),
            "sqlite": sqlite3.sqlite_version_info[0]}
'''


@pytest.fixture
def plain() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process", pool_size=1) as runtime:
        yield runtime


def test_numpy_protobuf_and_the_stdlib_import_under_the_process_wall(plain: Runtime) -> None:
    plain.add_tool(CES_IMPORTS)
    result = plain.call("ces_imports", {"values": [1.0, 2.0, 6.0]})
    assert result.success, result.error
    assert result.output == {"proto": {"mean": 3.0}, "csv": "1.0,2.0,6.0", "sqlite": 3}


EVERY_STANDARD_MODULE = '''
import importlib
import sys

WINDOWS_ONLY = {"msilib", "msvcrt", "nt", "winreg", "winsound"}
GRAPHICAL = {"antigravity", "idlelib", "tkinter", "turtle", "turtledemo", "this"}


def every_standard_module() -> dict:
    """Imports every public module of the standard library."""
    failed = {}
    names = sorted(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in GRAPHICAL)
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as error:
            failed[name] = str(error)
    return {"imported": len(names) - len(failed), "failed": sorted(failed)}
'''

CES_LIBRARIES = '''
import numpy as np
from google.protobuf import json_format, message, struct_pb2, timestamp_pb2
from pydantic import BaseModel


class Order(BaseModel):
    id: str
    total: float


def ces_libraries(raw: dict) -> dict:
    """pydantic, numpy and protobuf as CES tools use them."""
    order = Order.model_validate(raw)
    prices = np.array([1.5, 2.5, 4.0])
    value = struct_pb2.Value()
    json_format.ParseDict({"order": order.model_dump(), "tags": ["a", "b"]}, value)
    listed = struct_pb2.ListValue()
    listed.extend([1, "two", True])
    stamp = timestamp_pb2.Timestamp()
    stamp.FromJsonString("2024-01-02T03:04:05Z")
    wire = value.SerializeToString()
    again = struct_pb2.Value.FromString(wire)
    return {
        "order": order.model_dump(),
        "stats": [float(prices.mean()), float(np.std(prices)), prices.tolist(), np.arange(3).sum().item()],
        "value": json_format.MessageToDict(again),
        "list": json_format.MessageToJson(listed, indent=None),
        "stamp": [stamp.ToJsonString(), stamp.seconds],
        "is_message": isinstance(value, message.Message),
    }
'''


def test_the_whole_standard_library_imports_under_the_process_wall(plain: Runtime) -> None:
    plain.add_tool(EVERY_STANDARD_MODULE, limits=Limits(wall_time=60, cpu_time=60))
    result = plain.call("every_standard_module", {})
    assert result.success, result.error
    assert result.output["failed"] == [name for name in ("msilib", "msvcrt", "nt", "winreg", "winsound")]
    assert result.output["imported"] > 200


def test_pydantic_numpy_and_protobuf_work_under_the_process_wall(plain: Runtime) -> None:
    plain.add_tool(CES_LIBRARIES)
    result = plain.call("ces_libraries", {"raw": {"id": "A1", "total": "9.5"}})
    assert result.success, result.error
    assert result.output == {
        "order": {"id": "A1", "total": 9.5},
        "stats": [8 / 3, pytest.approx(1.0274, abs=1e-4), [1.5, 2.5, 4.0], 3],
        "value": {"order": {"id": "A1", "total": 9.5}, "tags": ["a", "b"]},
        "list": '[1.0, "two", true]',
        "stamp": ["2024-01-02T03:04:05Z", 1704164645],
        "is_message": True,
    }


@pytest.mark.parametrize("module", ["shutil", "socket", "ctypes", "numpy.lib", "google.protobuf.internal"])
def test_a_refused_module_names_the_process_wall(rt: Runtime, module: str) -> None:
    source = f'def probe() -> str:\n    """Probe."""\n    import {module}\n    return "imported"\n'
    rt.add_tool(source, replace=True)  # refused where the import runs, as CES raises ImportError
    refused = rt.call("probe", {}).error
    assert refused is not None and refused.kind == "policy" and "--walls process" in refused.message
    assert f'import of module "{module}" is not allowed: ' in refused.message
    assert "numpy, numpy.fft, numpy.linalg, numpy.random" in refused.message


def test_a_refused_module_is_refused_when_the_call_imports_it_too(rt: Runtime) -> None:
    source = 'def probe(name: str) -> str:\n    """Probe."""\n    __import__(name)\n    return "imported"\n'
    with pytest.raises(PolicyViolation, match="__import__"):
        rt.add_tool(source)


def test_numpy_and_protobuf_import_under_both_walls(rt: Runtime) -> None:
    rt.add_tool(CES_LIBRARIES)
    result = rt.call("ces_libraries", {"raw": {"id": "A1", "total": "9.5"}})
    assert result.success, result.error
    assert result.output["stats"][2] == [1.5, 2.5, 4.0]
    assert result.output["value"] == {"order": {"id": "A1", "total": 9.5}, "tags": ["a", "b"]}


def test_a_member_the_view_leaves_out_says_why(rt: Runtime) -> None:
    source = 'from numpy import load\n\ndef probe() -> str:\n    """Probe."""\n    return "x"\n'
    rt.add_tool(source)  # refused where the import runs
    refused = rt.call("probe", {}).error
    assert (
        refused is not None and "toolpen's numpy leaves it out: it reads or writes files" in refused.message
    )
    source = 'import numpy as np\n\ndef probe() -> float:\n    """Probe."""\n    return np.random.rand()\n'
    rt.add_tool(source, replace=True)
    result = rt.call("probe", {})
    assert not result.success
    assert "default_rng" in result.error.message
