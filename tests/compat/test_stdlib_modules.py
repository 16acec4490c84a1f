"""Every module of the Python 3.12 standard library, imported by a tool in a real worker under the default walls.

The measurement issue 31 starts from: each public top-level module of ``sys.stdlib_module_names``
(3.12's list: the running 3.11's without the modules 3.12 removed) either imports, as an
allowed view, or raises ImportError where the import runs, saying what the module does that the
wall keeps from tool code and what to use instead, so a guarded import goes on. A module that
plain CPython cannot import here either (Windows-only, or built without its C library) raises
ImportError under both.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator

import pytest

from runtime import PolicyViolation, Runtime
from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.language.modules import is_allowed_module
from sandbox.language.refused_modules import REASONS, refusal_reason

REMOVED_IN_312 = frozenset({"asynchat", "asyncore", "distutils", "imp", "smtpd"})
MODULES = sorted(name for name in sys.stdlib_module_names - REMOVED_IN_312 if not name.startswith("_"))
PROBE = '''
def probe() -> str:
    """Import one module."""
    try:
        import {module}
    except ImportError as refused:
        return "refused: " + str(refused)
    return "imported"
'''


def importable_in_cpython(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        yield runtime


def test_no_allowed_module_has_a_reason_to_be_refused() -> None:
    assert [name for name in REASONS if name in ALLOWED_MODULES] == []


@pytest.mark.parametrize("module", MODULES)
def test_a_standard_library_module_imports_or_says_why_not(runtime: Runtime, module: str) -> None:
    if module == "builtins":  # a name reserved by RestrictedPython: refused where the source says it
        with pytest.raises(PolicyViolation, match='"builtins" is a reserved name'):
            runtime.add_tool(PROBE.format(module=module), "probe", replace=True)
        return
    runtime.add_tool(PROBE.format(module=module), "probe", replace=True)
    result = runtime.call("probe", {})
    assert result.success, result.error
    if is_allowed_module(module):
        assert result.output == "imported"
    elif not importable_in_cpython(module):
        assert result.output.startswith("refused: ")
    else:
        assert result.output.startswith(f'refused: line 5: import of module "{module}" is not allowed: ')
        assert refusal_reason(module) in result.output
        assert "--walls process" in result.output
