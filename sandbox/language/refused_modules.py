"""Why the language wall refuses a module of the standard library, and what to use instead, as data.

An import of a module outside ``module_allowlist.ALLOWED_MODULES`` raises ``ImportRefused`` (an
``ImportError``) where it runs, so ``try: import x`` / ``except ImportError:`` works as in CES;
``toolpen check`` reports it at its line and column. The refusal says what the module does that
the wall keeps from tool code (``REASONS``) and what to use instead; a module not listed here is
one toolpen does not offer yet. Under ``--walls process`` every installed module imports.
"""

from __future__ import annotations

INTERNALS = "it leads to the interpreter's internals (frames, code objects, the real builtins, raw memory)"
PROCESS = "it starts processes or threads, or changes the whole process (signals, limits, terminal, locale)"
NETWORK = "it opens network connections or servers"
FILES = "it reads or writes files outside what the scratch directory offers (open, os, pathlib, tempfile)"
NO_INSTEAD = "run the tool with --walls process (plain CPython behind the process wall)"

_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        INTERNALS,
        NO_INSTEAD,
        (
            "ctypes",
            "mmap",
            "gc",
            "inspect",
            "dis",
            "code",
            "codeop",
            "marshal",
            "importlib",
            "pkgutil",
            "runpy",
            "zipimport",
            "modulefinder",
            "pyclbr",
            "pydoc",
            "pydoc_data",
            "site",
            "sysconfig",
            "symtable",
            "opcode",
            "sre_compile",
            "sre_parse",
            "sre_constants",
            "tokenize",
            "bdb",
            "pdb",
            "trace",
            "tracemalloc",
            "faulthandler",
            "cProfile",
            "profile",
            "pstats",
            "doctest",
            "unittest",
            "traceback",
            "linecache",
            "weakref",
            "atexit",
            "threading",
            "copyreg",
            "pickletools",
            "reprlib",
            "warnings",
            "encodings",
            "codecs",
            "this",
            "antigravity",
        ),
    ),
    (INTERNALS + ": pickle.loads calls any function its data names", "json", ("pickle", "shelve")),
    (INTERNALS + ": it runs strings as code", "call the function itself", ("timeit",)),
    (INTERNALS + ": the builtins are there without an import", "the builtins by name", ("builtins",)),
    (
        PROCESS,
        NO_INSTEAD,
        (
            "multiprocessing",
            "concurrent",
            "signal",
            "pty",
            "tty",
            "termios",
            "resource",
            "fcntl",
            "grp",
            "pwd",
            "posix",
            "select",
            "selectors",
            "syslog",
            "crypt",
            "getpass",
            "readline",
            "rlcompleter",
            "curses",
            "cmd",
            "pipes",
            "platform",
            "locale",
            "argparse",
            "optparse",
        ),
    ),
    (
        NETWORK,
        "ces_requests (CES's HTTP client) or tools.<name>(...)",
        (
            "socket",
            "ssl",
            "http",
            "ftplib",
            "imaplib",
            "poplib",
            "smtplib",
            "nntplib",
            "telnetlib",
            "socketserver",
            "xmlrpc",
            "wsgiref",
            "webbrowser",
            "cgi",
            "cgitb",
            "mailcap",
            "email",
            "urllib.request",
            "urllib.error",
            "urllib.response",
            "urllib.robotparser",
        ),
    ),
    (
        FILES,
        "open, os, pathlib, tempfile and glob in the call's scratch directory; io.StringIO / io.BytesIO; json, csv on strings",
        (
            "shutil",
            "filecmp",
            "fileinput",
            "zipfile",
            "tarfile",
            "bz2",
            "lzma",
            "dbm",
            "sqlite3",
            "mailbox",
            "mimetypes",
            "plistlib",
            "wave",
            "aifc",
            "sunau",
            "chunk",
            "sndhdr",
            "imghdr",
            "uu",
            "tabnanny",
            "py_compile",
            "compileall",
            "zipapp",
            "venv",
            "ensurepip",
            "lib2to3",
            "idlelib",
            "tkinter",
            "turtle",
            "turtledemo",
            "configparser",
            "gettext",
            "netrc",
            "genericpath",
            "posixpath",
            "ntpath",
            "nturl2path",
            "xml.dom",
            "xml.sax",
            "xml.parsers",
        ),
    ),
)
_LOGGING_SUBMODULES = (
    (
        "logging.config",
        "dictConfig and fileConfig import and call any name their configuration names",
        "logging.basicConfig, or getLogger(...).addHandler / setLevel",
    ),
    (
        "logging.handlers",
        "its handlers write files and open sockets, processes and queues",
        "logging.StreamHandler (the call's log) or a Handler subclass of your own",
    ),
)
REASONS: dict[str, tuple[str, str]] = {
    name: (why, instead) for why, instead, names in _GROUPS for name in names
} | {name: (why, instead) for name, why, instead in _LOGGING_SUBMODULES}
"""Module (top-level, or a submodule of an allowed one) -> (why the wall refuses it, what to use instead)."""
FRAMEWORK_PACKAGES = ("agents.", "google.adk.", "mcp.", "langchain_core.", "langchain.")
"""The frameworks whose tool files' imports have views (``framework_views``): the rest of each is refused."""
FRAMEWORK_REFUSAL = (
    "a tool file gets its framework's decorators, context annotations and inert agents and servers"
    " (docs/security.md, framework views); the framework's runners, clients and sessions run outside a tool call",
    "the names the framework views offer, or --walls process",
)


def refusal_reason(name: str) -> str:
    """What the wall does not let tool code do with ``name`` (a top-level module or a submodule), and instead what."""
    parts = name.split(".")
    prefixes = (".".join(parts[:end]) for end in range(len(parts), 0, -1))  # the longest listed one
    framework = FRAMEWORK_REFUSAL if f"{name}.".startswith(FRAMEWORK_PACKAGES) else None
    why, instead = (
        next(filter(None, map(REASONS.get, prefixes)), None)
        or framework
        or (
            "toolpen does not offer this module yet",
            NO_INSTEAD,
        )
    )
    return f"{why}; instead: {instead}"
