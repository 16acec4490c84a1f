"""Vetted module views: the only things ``import`` gives tool code.

A view is a read-only object holding a module's public functions, classes and constants, and
nothing that leads elsewhere: no submodules or other module references (``typing.sys``,
``json.decoder``, ``pydantic.main``), no metaclasses (class factories), no shared mutable
containers, and no helper that evaluates strings or walks attributes by name outside the guards
(those are left out or replaced by guarded versions). Views are built once per process; what
each holds is decided in ``module_allowlist.py``, and here only how a view is built and imported.
"""

from __future__ import annotations

import functools
import importlib
import sys
import types
from typing import Any

from sandbox.common.errors import ImportRefused, PolicyViolation
from sandbox.language.arming import imports_checked
from sandbox.language.module_allowlist import (
    ALLOWED_MODULES,
    EXPLICIT_NAMES,
    LEFT_OUT,
    LIBRARY_VIEWS,
    REPLACED,
    SCRATCH_VIEWS,
    UNSHAREABLE_KINDS,
)
from sandbox.language.pydantic_loader import load_pydantic
from sandbox.language.refused_modules import REASONS, refusal_reason
from sandbox.language.rules import refuse, violation


class ModuleView:
    """A read-only namespace standing for a vetted module.

    It has no ``__name__``: ``from view import x`` falls back to ``sys.modules[view.__name__ + ".x"]``
    when the view has no ``x``, which would hand out any loaded submodule.
    """

    __slots__ = ("_name", "_members")
    read_only_view = True

    def __init__(self, name: str, members: dict[str, Any]) -> None:
        try:
            object.__getattribute__(self, "_name")
        except AttributeError:
            object.__setattr__(self, "_name", name)
            object.__setattr__(self, "_members", types.MappingProxyType(dict(members)))
            return
        raise PolicyViolation("a module view cannot be changed")

    def __getattr__(self, name: str) -> Any:
        members = object.__getattribute__(self, "_members")
        try:
            return members[name]
        except KeyError:
            pass
        module = object.__getattribute__(self, "_name")
        reason = left_out_reason(module, name) if type(name) is str else None
        # CPython's own message when the module has no such name; why toolpen left it out otherwise
        raise AttributeError(
            f"module {module!r} has no attribute {name!r}" + (f": {reason}" if reason else "")
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyViolation(f"module {self._name!r} is read-only")

    def __delattr__(self, name: str) -> None:
        raise PolicyViolation(f"module {self._name!r} is read-only")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_members"))

    def __repr__(self) -> str:
        return f"<module {self._name!r} (toolpen view)>"


LAZY_C_IMPORTS = frozenset({"_strptime"})
"""What C code of an allowed module imports lazily through the calling tool's ``__import__``
(``datetime.strptime``): a zygote loads it with the module (``warmup.COMPANIONS``); a worker whose
tool reached the module otherwise imports it."""


def is_allowed_module(name: str) -> bool:
    """True for a vetted module or a package on the way to one (``urllib`` for ``urllib.parse``)."""
    return name in ALLOWED_MODULES or any(allowed.startswith(name + ".") for allowed in ALLOWED_MODULES)


@functools.cache
def module_view(name: str) -> ModuleView:
    """The view of ``name`` (which ``is_allowed_module``), with views of its allowed submodules."""
    members = _public_members(name) if name in ALLOWED_MODULES else {}
    for allowed in ALLOWED_MODULES:
        if allowed.startswith(name + "."):  # a package on the way to an allowed module (xml.etree)
            child = allowed[len(name) + 1 :].partition(".")[0]
            members[child] = module_view(f"{name}.{child}")
    return ModuleView(name, members)


def _public_members(name: str) -> dict[str, Any]:
    if name in SCRATCH_VIEWS:
        return dict(importlib.import_module(SCRATCH_VIEWS[name]).members(name))
    if name in LIBRARY_VIEWS:
        if name not in sys.modules and imports_checked():  # its code would fail the checks
            refuse(
                f"{name} was not loaded for this call: the pool loads a library when a registered "
                "tool's source imports it (Runtime.add_tool), not while a tool runs"
            )
        return dict(importlib.import_module(LIBRARY_VIEWS[name]).members(name))
    if name.partition(".")[0] == "pydantic":
        load_pydantic()  # its wall first
    module = importlib.import_module(name)
    names = EXPLICIT_NAMES.get(name) or getattr(module, "__all__", None) or dir(module)
    left_out = LEFT_OUT.get(name, {})
    members: dict[str, Any] = {}
    for member_name in names:
        if member_name.startswith("_") or member_name in left_out:
            continue
        value = getattr(module, member_name)
        if (
            type(value) is set
        ):  # a constant kept in a set (hashlib.algorithms_guaranteed): a copy no call can change
            value = frozenset(value)
        if _is_shareable(value):
            members[member_name] = value
    members.update(REPLACED.get(name, {}))
    return members


def _is_shareable(value: Any) -> bool:
    if isinstance(value, UNSHAREABLE_KINDS):
        return False
    return not (isinstance(value, type) and issubclass(value, type))


_FUTURE_VIEW = ModuleView("__future__", {"annotations": importlib.import_module("__future__").annotations})


def import_refusal(name: str) -> str:
    """Why ``import name`` is refused (what the module does, what to use instead), and what may be imported."""
    allowed = ", ".join(sorted(ALLOWED_MODULES))
    if name in LIBRARY_VIEWS and name not in ALLOWED_MODULES:
        return f'module "{name}" is not installed: pip install "toolpen[ces]" (tools may import: {allowed})'
    return (
        f'import of module "{name}" is not allowed: {refusal_reason(name)}; tools may import: {allowed} '
        '(under --walls process, walls="process", tools import any installed module: the whole '
        "standard library, numpy, protobuf)"
    )


def import_view(
    name: str,
    globals: object = None,
    locals: object = None,
    fromlist: tuple[str, ...] | list[str] | None = (),
    level: int = 0,
) -> ModuleView | None:
    """``__import__`` for tool code: vetted module views only.

    C code that imports lazily while a tool frame is current (``datetime.strptime`` loads
    ``_strptime``) calls the tool's ``__import__`` with an empty *list* ``fromlist`` and then reads
    ``sys.modules`` itself; such an import of a module already loaded, or of ``LAZY_C_IMPORTS``, is
    let through without handing anything to tool code (an import statement never passes a list).
    """
    if type(fromlist) is list and not fromlist and level == 0 and type(name) is str:
        if name in sys.modules:
            return None
        if name in LAZY_C_IMPORTS:  # from disk, under the checks, as a codec is
            importlib.import_module(name)
            return None
        refuse("this function needs a part of the standard library that toolpen does not load")
    if level != 0:
        refuse("relative imports are not allowed")
    if name == "__future__":
        return _FUTURE_VIEW
    if type(name) is not str or not is_allowed_module(name):
        # an ImportError where the import runs: a guarded import (try/except ImportError) goes on
        raise violation(import_refusal(str(name)), ImportRefused)
    if fromlist:
        view = module_view(name)
        for member in fromlist:
            if not hasattr(view, member):  # the interpreter would name the view '<unknown module name>'
                message = f"cannot import name {member!r} from {name!r}: {missing_member(name, member)}"
                if left_out_reason(name, member):  # the wall's refusal, still an ImportError
                    raise violation(message, ImportRefused)
                raise ImportError(message)
        return view
    return module_view(name.partition(".")[0])


def missing_member(module: str, member: str) -> str:
    """Why ``module.member`` is not there: toolpen left it out, or the module has no such name."""
    return left_out_reason(module, member) or f"{module} has no such name"


def _has_member(module: str, member: str) -> bool:
    """Whether ``module`` has ``member``, read from its namespace and ``__all__``: never through a
    module ``__getattr__``, which imports submodules (numpy's ``testing``, pydantic's deprecated names)."""
    if member in LEFT_OUT.get(module, {}) or f"{module}.{member}" in REASONS:  # a refused submodule
        return True
    if module in SCRATCH_VIEWS:  # the real module may not be loaded (tempfile): its builder says
        return importlib.import_module(SCRATCH_VIEWS[module]).left_out(module, member) is not None
    namespace = vars(importlib.import_module(module))
    return member in namespace or member in namespace.get("__all__", ())


def left_out_reason(module: str, member: str) -> str | None:
    """Why toolpen's view of an allowed ``module`` leaves out a public ``member`` it has, else None."""
    if module not in ALLOWED_MODULES or member.startswith("_"):
        return None
    view = module_view(module)
    if member in object.__getattribute__(view, "_members") or not _has_member(module, member):
        return None
    reason = LEFT_OUT.get(module, {}).get(member)
    if reason is None and f"{module}.{member}" in REASONS:  # a submodule the wall refuses (logging.config)
        reason = refusal_reason(f"{module}.{member}")
    builder = SCRATCH_VIEWS.get(module) or LIBRARY_VIEWS.get(module)
    if reason is None and builder:
        reason = importlib.import_module(builder).left_out(module, member)
    if reason is None:
        offered = dir(view)
        if len(offered) <= 12:
            return f"toolpen's {module} offers {', '.join(offered)} only"
        reason = (
            "its view offers the names it lists, and not this one"
            if module in EXPLICIT_NAMES
            else "it is a module, a value shared by every call, or a metaclass"
        )
    return f"toolpen's {module} leaves it out: {reason}"
