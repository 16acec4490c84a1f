"""Vetted module views: the only things ``import`` gives tool code.

A view is a read-only object holding a module's public functions, classes and constants, and
nothing that leads elsewhere: no submodules or other module references (``typing.sys``,
``json.decoder``, ``pydantic.main``), no metaclasses (class factories), no shared mutable
containers, and no helper that evaluates strings or walks attributes by name outside the guards
(those are left out or replaced by guarded versions). Views are built once per process.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import types
from collections.abc import Mapping
from typing import Any

from sandbox.common.errors import PolicyViolation
from sandbox.language import guards, streams
from sandbox.language.pydantic_loader import load_pydantic

ALLOWED_MODULES = frozenset(
    {
        "json",
        "math",
        "re",
        "datetime",
        "time",
        "typing",
        "pydantic",
        "dataclasses",
        "enum",
        "collections",
        "collections.abc",
        "itertools",
        "functools",
        "operator",
        "random",
        "statistics",
        "decimal",
        "fractions",
        "uuid",
        "base64",
        "hashlib",
        "hmac",
        "string",
        "textwrap",
        "urllib.parse",
        "copy",
        "zoneinfo",
        "abc",
        "calendar",
        "html",
        "csv",
        "io",
        "bisect",
        "heapq",
        "difflib",
        "unicodedata",
        "secrets",
        "contextlib",
        "types",
        # pure computation and data, added for CES: no files, no process state
        "ast",
        "binascii",
        "cmath",
        "colorsys",
        "fnmatch",
        "graphlib",
        "gzip",
        "html.parser",
        "ipaddress",
        "keyword",
        "numbers",
        "pprint",
        "shlex",
        "tomllib",
        "xml.etree.ElementTree",
        "zlib",
        "sys",
        "pydantic.dataclasses",
    }
)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent missing, or marked missing in sys.modules
        return False


LIBRARY_VIEWS: dict[str, str] = {
    **dict.fromkeys(("numpy", "numpy.linalg", "numpy.random", "numpy.fft"), "sandbox.language.numpy_view"),
    **dict.fromkeys(
        (
            "google.protobuf",
            "google.protobuf.json_format",
            "google.protobuf.message",
            "google.protobuf.struct_pb2",
            "google.protobuf.timestamp_pb2",
            "google.protobuf.duration_pb2",
            "google.protobuf.wrappers_pb2",
            "google.protobuf.any_pb2",
            "google.protobuf.field_mask_pb2",
            "google.protobuf.empty_pb2",
        ),
        "sandbox.language.protobuf_view",
    ),
}
"""Views of third-party libraries (the ``ces`` extra), each built by a module of its own, when installed."""
_LIBRARIES = {
    "sandbox.language.numpy_view": ("numpy", "cffi"),  # cffi: the gate on numpy's buffers (bufferless.py)
    "sandbox.language.protobuf_view": ("google.protobuf",),
}
ALLOWED_MODULES = ALLOWED_MODULES | {
    name for name, builder in LIBRARY_VIEWS.items() if all(map(_installed, _LIBRARIES[builder]))
}

_PYDANTIC_NAMES = (
    "BaseModel",
    "RootModel",
    "Field",
    "ConfigDict",
    "ValidationError",
    "ValidationInfo",
    "field_validator",
    "model_validator",
    "field_serializer",
    "model_serializer",
    "computed_field",
    "validate_call",
    "TypeAdapter",
    "AliasChoices",
    "AliasPath",
    "conint",
    "confloat",
    "constr",
    "conlist",
    "PositiveInt",
    "NegativeInt",
    "NonNegativeInt",
    "NonPositiveInt",
    "PositiveFloat",
    "NegativeFloat",
    "NonNegativeFloat",
    "StrictStr",
    "StrictInt",
    "StrictFloat",
    "StrictBool",
    "PrivateAttr",
    "validator",
    "root_validator",
    "AnyUrl",
    "AnyHttpUrl",
    "HttpUrl",
    "SecretStr",
    "Json",
    "UUID4",
    # Annotated metadata: validators and serializers run the tool's own functions
    "AfterValidator",
    "BeforeValidator",
    "PlainValidator",
    "WrapValidator",
    "PlainSerializer",
    "WrapSerializer",
    "SerializeAsAny",
    "InstanceOf",
    "SkipValidation",
    "Strict",
    "StringConstraints",
    "AllowInfNan",
    "Discriminator",
    "Tag",
    "FailFast",
    # constrained and special types
    "condecimal",
    "condate",
    "conset",
    "confrozenset",
    "conbytes",
    "FiniteFloat",
    "NonPositiveFloat",
    "StrictBytes",
    "SecretBytes",
    "ByteSize",
    "PastDate",
    "FutureDate",
    "PastDatetime",
    "FutureDatetime",
    "AwareDatetime",
    "NaiveDatetime",
    "JsonValue",
    "UUID1",
    "UUID3",
    "UUID5",
    "Base64Str",
    "Base64Bytes",
    "Base64UrlStr",
    "Base64UrlBytes",
    "PydanticUserError",
)
_TIME_NAMES = (
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "process_time",
    "process_time_ns",
    "thread_time",
    "thread_time_ns",
    "sleep",
    "strftime",
    "strptime",
    "gmtime",
    "localtime",
    "mktime",
    "asctime",
    "ctime",
    "struct_time",
    "get_clock_info",
    "timezone",
    "altzone",
    "daylight",
    "tzname",
)
_EXPLICIT_NAMES: dict[str, tuple[str, ...]] = {
    "pydantic": _PYDANTIC_NAMES,
    "time": _TIME_NAMES,
    # in-memory files only: no open(), no file descriptors
    "io": ("StringIO", "BytesIO", "SEEK_SET", "SEEK_CUR", "SEEK_END", "UnsupportedOperation"),
    # FunctionType, CodeType, new_class, ... build functions and classes from parts
    "types": ("SimpleNamespace", "MappingProxyType"),
    # literal_eval only: parse, compile-ready trees and node classes are not needed by tools
    "ast": ("literal_eval",),
    # in-memory compression only: no open() or GzipFile over a path
    "gzip": ("compress", "decompress", "BadGzipFile"),
    "html.parser": ("HTMLParser",),
    # pformat writes nowhere: pprint/pp/PrettyPrinter write to the process's stdout by default
    "pprint": ("pformat", "saferepr", "isreadable", "isrecursive"),
    # the shlex class reads the files its input names (``source``): split/join/quote only
    "shlex": ("split", "join", "quote"),
    "tomllib": ("loads", "load", "TOMLDecodeError"),
    # strings in, strings out: parse/iterparse/ElementTree read and write files by name, dump
    # writes to stdout, register_namespace changes process-wide state
    "xml.etree.ElementTree": (
        "Element",
        "SubElement",
        "fromstring",
        "fromstringlist",
        "tostring",
        "tostringlist",
        "XML",
        "XMLParser",
        "TreeBuilder",
        "ParseError",
        "indent",
        "iselement",
        "QName",
        "Comment",
        "ProcessingInstruction",
    ),
    # dataclasses validated by pydantic (its wall checks their schemas as it does models')
    "pydantic.dataclasses": ("dataclass", "is_pydantic_dataclass"),
    # constants and the output streams: no modules, frames, paths, hooks or limits to change
    "sys": (
        "stdout",
        "stderr",
        "version_info",
        "version",
        "hexversion",
        "maxsize",
        "maxunicode",
        "byteorder",
        "float_info",
        "int_info",
        "platform",
        "getsizeof",
        "getrecursionlimit",
        "get_int_max_str_digits",
    ),
}

_STATE = "it changes process-wide state"
_LEFT_OUT: dict[str, dict[str, str]] = {
    # name -> why it is left out (said in the refusal)
    "typing": {"ForwardRef": "it evaluates its string outside the guards; write the type itself"},
    "string": {"Formatter": "it walks attributes by name; use str.format"},
    "calendar": {
        "setfirstweekday": f"{_STATE}; pass firstweekday= to Calendar/TextCalendar",
        "LocaleTextCalendar": f"{_STATE} (the locale); use TextCalendar",
        "LocaleHTMLCalendar": f"{_STATE} (the locale); use HTMLCalendar",
        "prcal": "it writes to the process's stdout; print(calendar.calendar(year))",
        "prmonth": "it writes to the process's stdout; print(calendar.month(year, month))",
    },
    "contextlib": {
        "redirect_stdout": f"{_STATE} (sys.stdout); print writes to the call's log",
        "redirect_stderr": f"{_STATE} (sys.stderr); print writes to the call's log",
        "chdir": f"{_STATE} (the working directory)",
    },
    "csv": {
        "register_dialect": f"{_STATE} (the dialect registry); pass delimiter=, quotechar=, ... instead",
        "unregister_dialect": f"{_STATE} (the dialect registry)",
        "field_size_limit": _STATE,
    },
    "abc": {
        "update_abstractmethods": "it rewrites __abstractmethods__ of any class, a library's too",
        "ABCMeta": "it is a metaclass, a class factory past the sandbox's rules; derive from abc.ABC instead"
        " (class Base(ABC): ...), or run with --walls process",
    },
    "dataclasses": {"make_dataclass": "it builds classes from strings; write a class statement"},
    "enum": {
        name: "it writes enum members into another module; use the enum's members"
        for name in ("global_enum", "global_str", "global_enum_repr", "global_flag_repr")
    },
    "uuid": {
        "getnode": "it runs platform helpers to read the machine's address; use uuid4",
        "uuid1": "it runs platform helpers to read the machine's address; use uuid4",
    },
    "zoneinfo": {"reset_tzpath": f"{_STATE} (where time zone files are read from)"},
    "time": {
        "tzset": f"{_STATE} (the local time zone); use zoneinfo.ZoneInfo",
        "clock_settime": f"{_STATE} (the system clock)",
        "clock_settime_ns": f"{_STATE} (the system clock)",
    },
    "ast": {
        "parse": "toolpen's ast offers literal_eval only",
        "dump": "toolpen's ast offers literal_eval only",
    },
    "gzip": {
        "open": "it opens files; use gzip.compress / gzip.decompress",
        "GzipFile": "it opens files; use gzip.compress / gzip.decompress",
    },
    "pprint": {
        name: "it writes to the process's stdout; print(pprint.pformat(value))"
        for name in ("pprint", "pp", "PrettyPrinter")
    },
    "shlex": {"shlex": "it reads the files its input names (source); use shlex.split"},
    "xml.etree.ElementTree": {
        **dict.fromkeys(
            ("parse", "iterparse", "ElementTree"),
            "it reads or writes files by name; use fromstring / tostring",
        ),
        "dump": "it writes to the process's stdout; print(ET.tostring(element, encoding='unicode'))",
        "register_namespace": f"{_STATE} (the namespace prefixes)",
    },
}
_REPLACED: dict[str, Mapping[str, object]] = {  # functions, and the sys streams
    "operator": {"attrgetter": guards.attrgetter, "methodcaller": guards.methodcaller},
    # the real ones copy and write attributes named by strings, module globals included
    "functools": {
        "wraps": guards.guarded_wraps,
        "update_wrapper": guards.guarded_update_wrapper,
        **guards.CLASS_HELPERS["functools"],
    },
    # get_origin(Type[int]) is the real ``type``, a class factory; the class-changing helpers
    # (dataclass, final, runtime_checkable, ...) apply to the tool's own classes only
    "typing": {
        "get_origin": guards.guarded_get_origin,
        "get_args": guards.guarded_get_args,
        **guards.CLASS_HELPERS["typing"],
    },
    # a memo passed in would come back holding copies, and originals, of host objects' internals
    "copy": {"deepcopy": guards.guarded_deepcopy},
    # what is written to them goes to the call's log, as print's output does
    "sys": {"stdout": streams.STDOUT, "stderr": streams.STDERR},
    **{
        name: helpers for name, helpers in guards.CLASS_HELPERS.items() if name not in ("typing", "functools")
    },
}
_UNSHAREABLE_KINDS = (types.ModuleType, dict, list, set, bytearray)


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
    if name in LIBRARY_VIEWS:
        if name not in sys.modules and guards.imports_checked():  # its code would fail the checks
            guards.refuse(
                f"{name} was not loaded for this call: the pool loads a library when a registered "
                "tool's source imports it (Runtime.add_tool), not while a tool runs"
            )
        return dict(importlib.import_module(LIBRARY_VIEWS[name]).members(name))
    if name.partition(".")[0] == "pydantic":
        load_pydantic()  # its wall first
    module = importlib.import_module(name)
    names = _EXPLICIT_NAMES.get(name) or getattr(module, "__all__", None) or dir(module)
    left_out = _LEFT_OUT.get(name, {})
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
    members.update(_REPLACED.get(name, {}))
    return members


def _is_shareable(value: Any) -> bool:
    if isinstance(value, _UNSHAREABLE_KINDS):
        return False
    return not (isinstance(value, type) and issubclass(value, type))


_FUTURE_VIEW = ModuleView("__future__", {"annotations": importlib.import_module("__future__").annotations})


def import_refusal(name: str) -> str:
    """Why ``import name`` is refused, and what may be imported instead."""
    allowed = ", ".join(sorted(ALLOWED_MODULES))
    if name in LIBRARY_VIEWS and name not in ALLOWED_MODULES:
        return f'module "{name}" is not installed: pip install "toolpen[ces]" (tools may import: {allowed})'
    return (
        f'import of module "{name}" is not allowed; tools may import: {allowed} '
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
        guards.refuse("this function needs a part of the standard library that toolpen does not load")
    if level != 0:
        guards.refuse("relative imports are not allowed")
    if name == "__future__":
        return _FUTURE_VIEW
    if type(name) is not str or not is_allowed_module(name):
        guards.refuse(import_refusal(str(name)))
    if fromlist:
        view = module_view(name)
        for member in fromlist:
            if not hasattr(view, member):  # the interpreter would name the view '<unknown module name>'
                raise ImportError(
                    f"cannot import name {member!r} from {name!r}: {missing_member(name, member)}"
                )
        return view
    return module_view(name.partition(".")[0])


def missing_member(module: str, member: str) -> str:
    """Why ``module.member`` is not there: toolpen left it out, or the module has no such name."""
    return left_out_reason(module, member) or f"{module} has no such name"


def _has_member(module: str, member: str) -> bool:
    """Whether ``module`` has ``member``, read from its namespace and ``__all__``: never through a
    module ``__getattr__``, which imports submodules (numpy's ``testing``, pydantic's deprecated names)."""
    if member in _LEFT_OUT.get(module, {}):
        return True
    namespace = vars(importlib.import_module(module))
    return member in namespace or member in namespace.get("__all__", ())


def left_out_reason(module: str, member: str) -> str | None:
    """Why toolpen's view of an allowed ``module`` leaves out a public ``member`` it has, else None."""
    if module not in ALLOWED_MODULES or member.startswith("_"):
        return None
    view = module_view(module)
    if member in object.__getattribute__(view, "_members") or not _has_member(module, member):
        return None
    reason = _LEFT_OUT.get(module, {}).get(member)
    if reason is None and module in LIBRARY_VIEWS:
        reason = importlib.import_module(LIBRARY_VIEWS[module]).left_out(module, member)
    if reason is None:
        offered = dir(view)
        if len(offered) <= 12:
            return f"toolpen's {module} offers {', '.join(offered)} only"
        reason = (
            "its view offers the names it lists, and not this one"
            if module in _EXPLICIT_NAMES
            else "it is a module, a value shared by every call, or a metaclass"
        )
    return f"toolpen's {module} leaves it out: {reason}"
