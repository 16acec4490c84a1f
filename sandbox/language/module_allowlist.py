"""Which modules tool code may import, and what each one's view holds: the allowlist, as data.

``import`` in tool code gives a view (``modules.py``), never a module; this file is the whole
decision of what is in one, so a reviewer reads it top to bottom: ``ALLOWED_MODULES`` (the
standard library's pure, in-memory modules, and the ``ces`` extra's numpy and protobuf when
installed, ``LIBRARY_VIEWS``), the modules whose view lists its members (``EXPLICIT_NAMES``), the
public members a view leaves out with the reason the refusal gives (``LEFT_OUT``: members that
evaluate strings, open files, or change process-wide state), and the members it replaces with
versions that keep the rules (``REPLACED``). A view never holds a module, a mutable container
shared by every call, or a metaclass (``UNSHAREABLE_KINDS``).
"""

from __future__ import annotations

import importlib.util
import types
from typing import Any

from sandbox.language import framework_views, keyword_holders, replacements, streams
from sandbox.language.copy_protocol import guarded_deepcopy

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
        # pure computation on values, added for issue 31: no files, no process state, no internals
        "contextvars",
        "errno",
        "getopt",
        "queue",
        "stat",
        "stringprep",
        "struct",
        "token",
        # over the call's scratch directory and environment, in memory (scratch_fs.py): issue 31
        "os",
        "os.path",
        "pathlib",
        "tempfile",
        "glob",
        # toolpen's event loop (CPython's, without I/O): asyncio_view.py, issue 31
        "asyncio",
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
    "mcp.types": "sandbox.language.framework_views.mcp_types",
    # the standard library's modules whose view is a module of its own
    "logging": "sandbox.language.logging_view",
    "subprocess": "sandbox.language.subprocess_view",
    "asyncio": "sandbox.language.asyncio_view",
}
"""Views built by a module of their own: third-party libraries (the ``ces`` extra), when installed,
and the standard library's ``logging`` (into the call's log), ``subprocess`` (no process starts)
and ``asyncio`` (toolpen's event loop: CPython's, without I/O)."""
SCRATCH_VIEWS: dict[str, str] = {
    "os": "sandbox.language.os_view",
    "os.path": "sandbox.language.os_view",
    "pathlib": "sandbox.language.pathlib_view",
    "tempfile": "sandbox.language.tempfile_view",
    "glob": "sandbox.language.glob_view",
}
"""Views of the standard library's file modules over the call's scratch directory, built by toolpen."""
LIBRARY_REQUIREMENTS = {
    "sandbox.language.numpy_view": ("numpy", "cffi"),  # cffi: the gate on numpy's buffers (bufferless.py)
    "sandbox.language.protobuf_view": ("google.protobuf",),
    "sandbox.language.framework_views.mcp_types": ("mcp",),
    "sandbox.language.logging_view": ("logging",),
    "sandbox.language.subprocess_view": ("subprocess",),
    "sandbox.language.asyncio_view": ("asyncio",),
}
ALLOWED_MODULES = ALLOWED_MODULES | {
    name for name, builder in LIBRARY_VIEWS.items() if all(map(_installed, LIBRARY_REQUIREMENTS[builder]))
}
FRAMEWORK_VIEWS = frozenset(framework_views.MEMBERS)
"""ADK, the Agents SDK, MCP's server and LangChain core as pasted tool files import them: toolpen's stand-ins."""
ALLOWED_MODULES |= FRAMEWORK_VIEWS

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
EXPLICIT_NAMES: dict[str, tuple[str, ...]] = {
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
LEFT_OUT: dict[str, dict[str, str]] = {
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
REPLACED: dict[str, dict[str, Any]] = {
    "operator": {"attrgetter": replacements.attrgetter, "methodcaller": replacements.methodcaller},
    # the real ones copy and write attributes named by strings, module globals included
    "functools": {
        "wraps": replacements.guarded_wraps,
        "update_wrapper": replacements.guarded_update_wrapper,
        **replacements.CLASS_HELPERS["functools"],
        **keyword_holders.REPLACED["functools"],  # their keywords are checked when called
    },
    # get_origin(Type[int]) is the real ``type``, a class factory; the class-changing helpers
    # (dataclass, final, runtime_checkable, ...) apply to the tool's own classes only
    "typing": {
        "get_origin": replacements.guarded_get_origin,
        "get_args": replacements.guarded_get_args,
        **replacements.CLASS_HELPERS["typing"],
    },
    # a memo passed in would come back holding copies, and originals, of host objects' internals
    "copy": {"deepcopy": guarded_deepcopy},
    # its keywords become an instance dict that numpy and copy read special names from
    "types": keyword_holders.REPLACED["types"],
    # what is written to them goes to the call's log, as print's output does
    "sys": {"stdout": streams.STDOUT, "stderr": streams.STDERR},
    **{
        name: helpers
        for name, helpers in replacements.CLASS_HELPERS.items()
        if name not in ("typing", "functools")
    },
}
UNSHAREABLE_KINDS = (types.ModuleType, dict, list, set, bytearray)
