"""Imports as CES allows them: under walls="process" numpy, protobuf and the standard library import;
under the language wall a refused module says how to get it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime

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


@pytest.mark.parametrize("module", ["numpy", "google.protobuf", "os"])
def test_a_refused_module_names_the_process_wall(rt: Runtime, module: str) -> None:
    source = f'def probe() -> str:\n    """Probe."""\n    import {module}\n    return "imported"\n'
    with pytest.raises(Exception, match="--walls process") as refused:
        rt.add_tool(source)
    assert f'import of module "{module}" is not allowed; tools may import: abc,' in str(refused.value)
