"""The restricted globals one tool run executes in: safe builtins, guards, imports, ``print``."""

from __future__ import annotations

import builtins
import enum
import sys
import types
from typing import Any

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from sandbox.common.errors import PolicyViolation
from sandbox.common.limits import Limits
from sandbox.language import arming, guards, pydantic_loader, scratch, streams
from sandbox.language.annotations import install_forward_ref_hook
from sandbox.language.array_interface import close_array_interface
from sandbox.language.classes import GuardedType, guarded_build_class
from sandbox.language.copy_protocol import close_copied_specials, close_copy_reconstruct
from sandbox.language.enum_wall import install_enum_hook
from sandbox.language.modules import import_view
from sandbox.language.rules import TOOL_MODULE_NAME
from sandbox.language.scratch_files import open_file
from sandbox.language.source_lines import install_source_lines_hook

_PLAIN_BUILTINS = [
    "None",
    "False",
    "True",
    "Ellipsis",
    "NotImplemented",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "hash",
    "hex",
    "id",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "ord",
    "pow",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "classmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
    "format",
]
_EXCEPTIONS = tuple(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type)
    and issubclass(value, BaseException)
    and name not in ("KeyboardInterrupt", "SystemExit", "GeneratorExit")
)
"""The builtin exceptions, exception groups included (``except*``, whose CPython bug CVE-2025-22153
used, is refused at compile time; raising, catching and splitting a group is ordinary code)."""
_GUARDED_BUILTINS: dict[str, Any] = {
    "getattr": guards.guarded_getattr,
    "hasattr": guards.guarded_hasattr,
    "setattr": guards.guarded_setattr,
    "delattr": guards.guarded_delattr,
    "dir": guards.guarded_dir,
    "type": GuardedType,
    "vars": guards.guarded_vars,
    "__import__": import_view,
    "__build_class__": guarded_build_class,
    "open": open_file,  # files of the call's scratch directory (scratch_fs.py), never the real ones
}
SAFE_BUILTINS: types.MappingProxyType[str, Any] = types.MappingProxyType(
    {name: getattr(builtins, name) for name in (*_PLAIN_BUILTINS, *_EXCEPTIONS)} | _GUARDED_BUILTINS
)
"""Every builtin tool code sees. Absent on purpose: eval, exec, compile, open, globals, locals,
input, breakpoint, help, exit/quit, the real open (``open`` is the scratch directory's), and KeyboardInterrupt, SystemExit, GeneratorExit."""

_SHARED_BUILTINS = dict(SAFE_BUILTINS)
"""The builtins of a single-use worker's calls, built once, in the zygote. A copy per call would
write the reference count of every builtin: about 90 pages of the zygote's copied into each
worker. Nothing a call did to it reaches another call, since its worker exits after the call; each
call of a reused worker gets a copy."""

_GUARDS: dict[str, Any] = {
    "_getattr_": guards.guarded_getattr,
    "_getitem_": guards.guarded_getitem,
    "_getiter_": iter,
    "_write_": guards.guarded_write,
    "_apply_": guards.guarded_apply,
    "_augattr_": guards.augmented_attribute,
    "_augitem_": guards.augmented_item,
    "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    "_unpack_sequence_": guarded_unpack_sequence,
    "_match_class_": guards.match_class,
}


class OutputCapture:
    """What ``print`` in tool code wrote: at most ``limit`` characters, then a truncation note."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.truncated = False
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        """Append ``text`` (a ``str``, kept as an exact copy), dropping whatever goes past the limit.

        Every writer of the log (``print``, ``sys.stdout``, logging's handlers) ends here with what
        the tool chose: a ``str`` subclass's own ``len``, slicing or ``join`` never reach the log,
        whose text the worker's error path reads whatever the tool raised."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        text = str.__str__(text)
        room = self.limit - self._size
        if len(text) > room:
            text = text[: max(room, 0)]
            self.truncated = True
        self._parts.append(text)
        self._size += len(text)

    @property
    def text(self) -> str:
        """The captured output, with ``... [output truncated at N bytes]`` when it was cut."""
        note = f"\n... [output truncated at {self.limit} bytes]" if self.truncated else ""
        return "".join(self._parts) + note


class _Printer:
    """The object RestrictedPython's rewritten ``print(...)`` calls (``_print._call_print``)."""

    def __init__(self, output: OutputCapture) -> None:
        self._output = output

    def _call_print(
        self,
        *objects: object,
        sep: str | None = " ",
        end: str | None = "\n",
        file: object = None,
        flush: bool = False,
    ) -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        for name, value in (("sep", sep), ("end", end)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be None or a string, not {type(value).__name__}")
        if file is None:
            self._output.write(sep.join(map(str, objects)) + end)
            return
        # print(..., file=buffer) is buffer.write(...) piece by piece, as CPython does: through the guards
        write = guards.guarded_getattr(file, "write")
        for index, item in enumerate(objects):
            if index:
                write(sep)
            write(str(item))
        write(end)
        if flush:
            guards.guarded_getattr(file, "flush")()

    def __call__(self) -> str:
        """RestrictedPython's ``printed``: what this call printed so far."""
        return self._output.text


def tool_file(entry: str) -> str:
    """``__file__`` of a tool whose entry function is ``entry``: a file named like the tool, in the
    working directory (inferred: CES documents no ``__file__``; a tool's name is its function's)."""
    return f"{entry}.py"


def build_globals(
    *,
    injected: dict[str, object],
    output: OutputCapture,
    single_use: bool = False,
    entry: str = "tool",
    limits: Limits | None = None,
    environment: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Fresh globals for one run: safe builtins, guards, module-view imports, ``print`` into ``output``.

    ``single_use``: the process exits after this run, which then takes the builtins dict built in
    the zygote rather than a copy. ``entry`` names the tool's file (``__file__``, ``tool_file``);
    ``limits``: the call's, for its scratch directory; ``environment``: its ``os.environ``.

    The globals are those of a module registered as ``sys.modules["toolpen_tool"]`` so that
    pydantic and ``typing.get_type_hints`` resolve the tool's annotations in the tool's own
    namespace (under the ForwardRef hook).
    """
    for name in injected:
        if name.startswith("_"):
            raise PolicyViolation(f"injected name {name!r} may not start with '_'")
    module = types.ModuleType(TOOL_MODULE_NAME)
    namespace = vars(module)
    scratch.start_call(limits or Limits(), environment)  # an empty scratch directory, the host's environment
    namespace.update(_GUARDS)
    namespace["__builtins__"] = _SHARED_BUILTINS if single_use else dict(SAFE_BUILTINS)
    bind_output(namespace, output)
    namespace["__file__"] = tool_file(entry)
    namespace.update(injected)
    sys.modules[TOOL_MODULE_NAME] = module
    return namespace


def bind_output(namespace: dict[str, Any], output: OutputCapture) -> None:
    """Send what the code of ``namespace`` prints (``print``, the sys view's stdout and stderr) to
    ``output``: once as the globals are built, and again for each call of a tool image's module
    (``sandbox.process.tool_image``), whose globals were built before the call."""
    printer = _Printer(output)
    streams.route(output)
    namespace["_print_"] = lambda _getattr=None: printer


def install_process_hooks(*, worker: bool = False) -> None:
    """Once per process before tool code runs: the ``typing.ForwardRef``, enum and code-object hooks,
    and pydantic's once it loads (``pydantic_loader``). Idempotent.

    In a ``worker`` (a zygote and what it forks) the hooks' checks then apply to everything the
    process does, not only while tool code is on the stack (``arming.arm_checks``).
    """
    if worker:
        arming.arm_checks()
    close_array_interface(enum.Enum)  # its members hold tool values
    close_copied_specials()
    close_copy_reconstruct()
    install_forward_ref_hook()
    install_enum_hook()
    arming.install_code_hook()
    install_source_lines_hook()
    pydantic_loader.enable()
