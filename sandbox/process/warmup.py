"""What the zygote loads before it forks, so that a worker never reads code from disk.

Every module a worker imported itself would be files read and code run per call. So the zygote
loads each module a registered tool's source imports (``modules_needed``; ``preload_for``, when
the pool warms the tool): it imports the module, builds its view, imports what C code of it
imports lazily (``_strptime`` under ``datetime.strptime``), loads the common time zones for
``zoneinfo``, and runs a tool that uses it once (``warm_tools``), which makes its lazy imports
inside functions (``heapq`` under ``Counter.most_common``) happen here too. What every tool may
use without an import (the codecs ``str.encode`` finds, classes, ``match``, formatting) is loaded
and run once when the zygote starts (``preload``).

Only what the tools import: every fork copies the page tables of the zygote's memory and every
exit unmaps them, so a pool pays for each module its zygote holds on every call. The standard
library's allowed modules were a fifth of that memory, pydantic with the CES classes built on it
a third, numpy as much again. ``tests/sandbox/process/test_warmup.py`` checks that a worker then imports nothing.
Under the language wall a tool reaches a module only through an import statement; what C code
imports lazily for a value the tool got otherwise (``_strptime`` for the ``strptime`` of a
``datetime`` from a pydantic field or ``tomllib``) is imported in its worker, from disk, under
the checks (``modules.LAZY_C_IMPORTS``). Under ``walls="process"`` a tool imports what it likes
in its worker.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import gc
import importlib
import sys

from sandbox.bridges.ces_context import ces_types, names_in, uses_model_classes
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_source
from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.language.modules import module_view
from sandbox.messages import Done
from sandbox.process.forking import reseed
from sandbox.process.warm_tools import CORE, LIBRARIES, STANDARD_LIBRARY, job, undo_what_tools_could_see
from sandbox.process.worker import PREPARATION_FRAMES, run_warm_up
from sandbox.wire import decode, encode

CODECS = (
    "encodings.ascii",
    "encodings.cp1252",
    "encodings.cp437",
    "encodings.hex_codec",
    "encodings.base64_codec",
    "encodings.idna",
    "encodings.latin_1",
    "encodings.punycode",
    "encodings.raw_unicode_escape",
    "encodings.unicode_escape",
    "encodings.utf_16",
    "encodings.utf_16_be",
    "encodings.utf_16_le",
    "encodings.utf_32",
    "encodings.utf_8_sig",
)
"""The codecs ``str.encode`` and ``bytes.decode`` find by importing them, which any tool may use."""
COMPANIONS = {"datetime": ("_strptime",), "time": ("_strptime",)}
"""What C code of a module imports lazily, through the calling tool's ``__import__``
(``modules.LAZY_C_IMPORTS``): ``datetime.strptime``, ``time.strptime``."""

COMMON_TIME_ZONES = (
    "UTC",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Mexico_City",
    "America/Sao_Paulo",
    "America/Bogota",
    "America/Argentina/Buenos_Aires",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Lisbon",
    "Europe/Madrid",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Amsterdam",
    "Europe/Rome",
    "Europe/Zurich",
    "Europe/Stockholm",
    "Europe/Warsaw",
    "Europe/Istanbul",
    "Europe/Moscow",
    "Africa/Cairo",
    "Africa/Johannesburg",
    "Africa/Lagos",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Australia/Sydney",
    "Pacific/Auckland",
)
"""Zones loaded with ``zoneinfo`` (a time zone is a data file; kept alive here, ``ZoneInfo`` finds them cached)."""
_loaded_zones: list[object] = []

LIBRARY_PACKAGES = {"numpy": "numpy", "google": "google.protobuf", "pydantic": "pydantic"}
"""The top-level package of a library's modules -> the library (``warm_tools.LIBRARIES``), loaded as one."""
PYDANTIC_TRIGGERS = frozenset(
    {
        "user_content",
        "events",
        "get_last_user_input",
        "get_last_agent_output",
        "parts",
        "llm_request",
        "llm_response",
        "callback_context",
        "RunContextWrapper",  # its context is the state validated as the annotation's class
    }
)
"""Names besides the CES classes' (``ces_context.uses_model_classes``) that lead a tool to pydantic
without an import: what ``context`` gives as CES objects, and a callback's arguments (a callback
is also a function named ``*_callback``, a fake ``fake_*``)."""
_preloaded: set[str] = set()
_LIBC = ctypes.CDLL(None)
SPECIALIZING_CALLS = 8  # CPython 3.11 specializes a function's bytecode after its first 8 calls


def preload() -> None:
    """Load what any tool may use without an import (the codecs), and run once a tool using it (``warm_tools.CORE``)."""
    for name in CODECS:
        importlib.import_module(name)
    run_warm_up(job(CORE))


def warm_up_preparation() -> None:
    """Run here, more than ``SPECIALIZING_CALLS`` times, what every worker runs before its job: the
    reseed after the fork and its no-op job (``worker.prepare``), the frames' JSON included.

    The first calls of a function in a process write to the pages of its code and of what it
    allocates (CPython counts them, then specializes the bytecode in place): done in each worker,
    every such write copies a page of the zygote; done here first, about 30 fewer per worker.
    """
    for frame in PREPARATION_FRAMES.values():
        for _ in range(SPECIALIZING_CALLS + 1):
            _prepare_once(frame)


def _prepare_once(frame: bytes) -> None:
    """The idle worker's path once: the reseed, the no-op job of ``frame``, its done encoded."""
    streams = sys.stdout, sys.stderr  # a plain CPython call routes them to its log (plain.plain_globals)
    reseed()
    run_warm_up(decode(frame))
    encode(Done(1).encode())
    sys.stdout, sys.stderr = streams


def preload_for(source: str) -> bool:
    """Load, view and warm up each module ``source`` needs (``modules_needed``), once; whether it loaded one.

    Then the call's path again (``run_warm_up``, ``warm_up_preparation``): a library's views reset the
    guards' cache of rules per class, and its load leaves the interpreter's caches as it used
    them; about 15 fewer page faults per worker of a pool that loaded numpy.
    """
    loading = sorted(modules_needed(source) - _preloaded)
    for name in loading:
        _preloaded.add(
            name
        )  # tried once: one that fails to load fails the calls needing it, in their workers
        with contextlib.suppress(Exception):
            _load(name)
    if loading:
        run_warm_up()
        warm_up_preparation()
        undo_what_tools_could_see()
    return bool(loading)


def _load(name: str) -> None:
    """Load one module of the standard library or one library (with its modules), and run its warm-up tool."""
    if name == "pydantic":
        ces_types()  # pydantic, walled, and the CES classes built on it
    for allowed in sorted(ALLOWED_MODULES):
        if allowed == name or allowed.startswith(name + "."):
            module_view(allowed)
    for companion in COMPANIONS.get(name, ()):
        importlib.import_module(companion)
    if name == "zoneinfo":
        _load_common_time_zones()
    tool = LIBRARIES.get(name) or STANDARD_LIBRARY.get(name)
    if tool:
        run_warm_up(job(tool))


def _load_common_time_zones() -> None:
    import zoneinfo  # noqa: PLC0415 (loaded with the module, for a pool whose tools import it)

    for key in COMMON_TIME_ZONES:
        try:
            _loaded_zones.append(zoneinfo.ZoneInfo(key))
        except zoneinfo.ZoneInfoNotFoundError:  # a machine without that zone's data
            continue


def settle(walls: str = "all") -> None:
    """Before the zygote forks: free the warm-up's garbage, hand the C heap's free pages back to the
    system, and freeze what is left, so that workers share its pages and their collector skips it;
    then take the idle worker's path once more (its preparation for ``walls``, the mode its workers
    prepare for).

    Frozen garbage would stay for good, and free pages would be counted in every worker's share
    of the zygote's memory and copied into every worker's page tables. The last pass leaves the
    interpreter's caches (the type attribute cache, the bytecode's counters) as that path leaves
    them: the collection and what ran since the warm-up evicted entries that each worker wrote
    back, on pages it then copied (about 15-20 fewer per worker, ``bench_worker.py --floor``).
    """
    gc.collect()
    _LIBC.malloc_trim(0)
    gc.freeze()
    _prepare_once(PREPARATION_FRAMES[walls])


def modules_needed(source: str) -> set[str]:
    """What ``source`` leads to (read, not run): each allowed module of the standard library its
    import statements name, and each library of ``LIBRARY_PACKAGES`` (as one name: ``numpy``,
    ``google.protobuf``, ``pydantic``).

    Any import statement counts, under both walls modes: ``import urllib`` (on the way to
    ``urllib.parse``), ``import numpy.linalg``, ``from google import protobuf``. pydantic counts
    too where the code names what is built on it (``PYDANTIC_TRIGGERS``: a CES class,
    ``context.user_content``, a callback or fake, which receive CES objects).
    """
    try:
        tree = parse_source(source)
    except InvalidSource:
        return set()
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.append(node.module)
    needed = {
        LIBRARY_PACKAGES.get(allowed.partition(".")[0], allowed)
        for name in set(imported)
        for allowed in ALLOWED_MODULES
        if allowed == name or allowed.startswith(name + ".")
    }
    names = names_in(source)
    if (
        names & PYDANTIC_TRIGGERS
        or uses_model_classes(source)
        or any(name.endswith("_callback") for name in names)
    ):
        needed.add("pydantic")
    return needed
