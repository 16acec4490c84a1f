"""The scratch directory behind ``open``, ``os``, ``os.path``, ``pathlib`` and ``tempfile``: only the call's own files.

Under the default walls those modules are views over an in-memory tree held by the call's
single-use worker (``sandbox/language/scratch_fs.py``): no path reaches the real file system,
no descriptor is a real one, each call starts empty and sees no other call's files, its size and
file count are capped, and nothing of the views leads to the real modules or builtins. Each
class of attack below comes in several spellings.
"""

from __future__ import annotations

import pytest

from attacks import attack, holds_real_builtins, run_tool
from runtime import InvalidArguments, Limits, Runtime
from sandbox.common.errors import PolicyViolation

SECRET_PATHS = (
    "/proc/self/mem",
    "/proc/self/environ",
    "/proc/self/maps",
    "/proc/1/cmdline",
    "/etc/passwd",
    "/usr/lib/os-release",
    "/dev/zero",
)
TRAVERSALS = (
    "../etc/passwd",
    "../../proc/self/mem",
    "/tmp/../etc/passwd",
    "/tmp/./../proc/self/environ",
    "//etc/passwd",
)
READERS = (
    "open({path!r}).read()",
    "open({path!r}, 'rb').read()",
    "open({path!r}.encode()).read()",
    "pathlib.Path({path!r}).read_text()",
    "pathlib.Path('/') .joinpath(*{path!r}.split('/')).read_bytes()",
    "os.stat({path!r})",
    "os.listdir({path!r})",
    "os.open({path!r}, os.O_RDONLY)",
    "os.path.getsize({path!r})",
)


def _tool(body: str) -> str:
    return f"import os, os.path, pathlib, tempfile\ndef tool():\n    return {body}\n"


@pytest.mark.parametrize("path", SECRET_PATHS + TRAVERSALS)
@pytest.mark.parametrize("reader", READERS)
def test_no_path_outside_the_scratch_directory_is_there(reader: str, path: str) -> None:
    with pytest.raises(FileNotFoundError):
        run_tool(_tool(reader.format(path=path)))


@pytest.mark.parametrize("path", SECRET_PATHS + TRAVERSALS + ("/x", "/tmp/../x", "../x"))
@pytest.mark.parametrize(
    "writer",
    (
        "open({path!r}, 'w')",
        "open({path!r}, 'ab')",
        "os.mkdir({path!r})",
        "os.makedirs({path!r})",
        "pathlib.Path({path!r}).write_text('x')",
        "pathlib.Path({path!r}).touch()",
        "os.open({path!r}, os.O_WRONLY | os.O_CREAT)",
        "os.rename('/tmp', {path!r})",
        "tempfile.mkstemp(dir={path!r})",
        "os.chdir({path!r})",
    ),
)
def test_nothing_outside_the_scratch_directory_is_written(writer: str, path: str) -> None:
    with pytest.raises((PermissionError, FileNotFoundError)):
        run_tool(_tool(writer.format(path=path)))


def test_exists_and_listings_show_only_the_scratch_directory() -> None:
    seen, _ = run_tool(
        _tool(
            "[os.listdir('/'), os.listdir('/tmp'), [os.path.exists(p) for p in"
            " ('/proc', '/etc', '/proc/self/mem', '/dev/null')], sorted(os.walk('/'))]"
        )
    )
    assert seen == [["tmp"], [], [False, False, False, False], [("/", ["tmp"], []), ("/tmp", [], [])]]


@pytest.mark.parametrize(
    "body",
    (
        "os.symlink('/proc/self/mem', 'mem')",
        "os.link('/etc/passwd', 'p')",
        "os.readlink('/proc/self/exe')",
        "pathlib.Path('mem').symlink_to('/proc/self/mem')",
        "pathlib.Path('mem').hardlink_to('/etc/passwd')",
        "pathlib.Path('/proc/self/exe').readlink()",
        "getattr(os, 'sym' + 'link')('/', 'root')",
    ),
)
def test_there_are_no_links(body: str) -> None:
    with pytest.raises((AttributeError, NotImplementedError, OSError)):
        run_tool(_tool(body))


@pytest.mark.parametrize(
    "body",
    (
        "open(0).read()",
        "open(3, 'rb').read()",
        "open(4, 'wb').write(b'x')",
        "os.fdopen(3).read()",
        "os.fdopen(5, 'wb').write(b'frame')",
        "os.read(0, 10)",
        "os.write(1, b'x')",
        "os.write(4, b'frame')",
        "os.close(3)",
        "os.lseek(3, 0, 0)",
        "os.fstat(3)",
        "open(True).read()",
        "os.stat(3)",
    ),
)
def test_no_real_descriptor_is_reached(rt: Runtime, body: str) -> None:
    """In a real worker, where 0-2 and the host's socket are real descriptors."""
    result = attack(rt, _tool(body).replace("def tool", "def fd_attack"))
    assert result.error is not None and result.error.kind == "tool_error", result
    assert "Bad file descriptor" in result.error.message


@pytest.mark.parametrize(
    "body",
    (
        "os.dup(0)",
        "os.pipe()",
        "os.system('id')",
        "os.popen('id')",
        "os.fork()",
        "os.execv('/bin/sh', ['sh'])",
        "os.kill(1, 9)",
        "os.spawnv(0, '/bin/sh', ['sh'])",
        "os.posix_spawn('/bin/sh', ['sh'], {})",
        "os.putenv('A', 'B')",
        "os.setuid(0)",
        "os.chmod('/tmp', 0o777)",
        "os._exit(0)",
        "os.register_at_fork(before=print)",
        "open('x', 'w').fileno()",
        "open('x', 'w', opener=lambda path, flags: 0)",
    ),
)
def test_what_reaches_the_process_is_refused_with_a_reason(body: str) -> None:
    with pytest.raises((AttributeError, OSError, ValueError, PolicyViolation)) as caught:
        run_tool(_tool(body))
    message = str(caught.value)
    assert "toolpen" in message or "descriptor" in message or "opener" in message, message


@pytest.mark.parametrize(
    "source",
    (
        "from os import system\ndef tool():\n    return 1\n",
        "from os import _exit\ndef tool():\n    return 1\n",
        "from os.path import os\ndef tool():\n    return 1\n",
        "from os.path import genericpath\ndef tool():\n    return 1\n",
        "from pathlib import os\ndef tool():\n    return 1\n",
        "from tempfile import _os\ndef tool():\n    return 1\n",
    ),
)
def test_the_views_hold_no_module(source: str) -> None:
    with pytest.raises(ImportError):
        run_tool(source)


@pytest.mark.parametrize(
    "body",
    (
        "os.path.join.__globals__",
        "os.environ._values",
        "vars(os.environ)",
        "os.environ.__class__.__init__.__globals__",
        "type(os.environ)._values",
        "open('x', 'w').buffer.raw._node",
        "vars(open('x', 'w').buffer.raw)",
        "open('x', 'w').buffer.raw.__dict__",
        "type(open('x', 'w').buffer.raw).readinto.__globals__",
        "next(os.scandir('/'))._node",
        "next(os.scandir('/')).__class__.__slots__",
        "os.walk('/').gi_frame",
        "pathlib.Path('/').iterdir().gi_frame.f_globals",
        "pathlib.Path.cwd.__func__",
        "pathlib.Path.__dict__",
        "pathlib.Path('x')._matching",
        "tempfile.TemporaryDirectory()._delete",
        "tempfile.mkstemp.__globals__",
        "getattr(os, '__dict__')",
        "getattr(os.path, '__spec__')",
        "os.__loader__",
        "os.stat('/tmp').__class__.__subclasses__",
        "os.PathLike.__subclasshook__.__globals__",
        "open.__self__",
        "open.__globals__",
    ),
)
def test_no_view_object_leads_to_the_real_modules_or_builtins(body: str) -> None:
    with pytest.raises((PolicyViolation, AttributeError)):
        run_tool(_tool(body))


def test_what_the_views_hand_out_holds_no_module_or_real_builtin() -> None:
    values, _ = run_tool(
        _tool(
            "[os, os.path, pathlib, tempfile, open, os.environ, os.getenv, open('f', 'w'),"
            " open('f', 'w').buffer, open('f', 'rb').raw, pathlib.Path('f'), next(os.scandir('.')),"
            " tempfile.TemporaryDirectory(), os.stat('f'), type(pathlib.Path('f')), os.fspath(pathlib.Path('f')),"
            " *[getattr(os, name) for name in dir(os)], *[getattr(os.path, name) for name in dir(os.path)],"
            " *[getattr(pathlib, name) for name in dir(pathlib)], *[getattr(tempfile, n) for n in dir(tempfile)]]"
        )
    )
    assert not holds_real_builtins(values)
    assert not any(type(value).__name__ == "module" for value in values)


SUBCLASS_TRICKS = {
    # __fspath__ is a special name tool code may not define (compile time): what a path says is its text
    "fspath-to-proc": (
        "class P:\n    def __fspath__(self):\n        return '/proc/self/mem'\n"
        "def tool():\n    return open(P(), 'rb').read()\n",
        PolicyViolation,
    ),
    "fspath-on-a-path-subclass": (
        "import pathlib\nclass P(pathlib.Path):\n    def __fspath__(self):\n        return '/proc/self/mem'\n"
        "def tool():\n    return P('x').read_text()\n",
        PolicyViolation,
    ),
    "fspath-assigned": (
        "import pathlib\nclass P(pathlib.PurePosixPath):\n    pass\n"
        "def tool():\n    setattr(P, '__fs' + 'path__', lambda self: '/etc/passwd')\n",
        PolicyViolation,
    ),
    "str-subclass-lies": (
        "class S(str):\n    def split(self, *a):\n        return ['proc', 'self', 'mem']\n"
        "    def startswith(self, *a):\n        return True\n    def __str__(self):\n        return '/etc/passwd'\n"
        "    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n"
        "def tool():\n    open(S('/etc/passwd'), 'w')\n",
        PermissionError,
    ),
    "str-subclass-is-its-text": (
        "import os\nclass S(str):\n    def __str__(self):\n        return '/proc/self/mem'\n"
        "    def __add__(self, other):\n        return '/proc/self/mem'\n"
        "def tool():\n    open(S('mine.txt'), 'w').write('x')\n    return os.listdir('.')\n",
        None,
    ),
    "bytes-subclass": (
        "class B(bytes):\n    def __bytes__(self):\n        return b'/proc/self/mem'\n"
        "    def decode(self, *a):\n        return '/proc/self/mem'\n"
        "def tool():\n    return open(B(b'/etc/passwd'), 'rb').read()\n",
        FileNotFoundError,
    ),
    "path-subclass-str": (
        "import pathlib\nclass P(pathlib.PurePosixPath):\n    def __str__(self):\n        return '/etc/passwd'\n"
        "def tool():\n    return open(P('x')).read()\n",
        FileNotFoundError,
    ),
    "null-byte": ("def tool():\n    return open('/tmp/a\\x00/../../etc/passwd')\n", ValueError),
    "path-subclass-private": (
        "import pathlib\nclass P(pathlib.Path):\n    def grab(self):\n        return self._matching\n"
        "def tool():\n    return P('x').grab()\n",
        PolicyViolation,
    ),
}


@pytest.mark.parametrize("name", SUBCLASS_TRICKS)
def test_path_objects_of_the_tool_name_only_scratch_files(name: str) -> None:
    source, refusal = SUBCLASS_TRICKS[name]
    if refusal is None:
        result, _ = run_tool(source)
        assert result == ["mine.txt"]  # the string itself, not what its methods or __fspath__ say
        return
    with pytest.raises(refusal):
        run_tool(source)


@pytest.mark.parametrize(
    ("body", "limit"),
    (
        ("open('big', 'wb').write(b'x' * (9 * 1024 * 1024))", "scratch_size"),
        ("[open(f'f{i}', 'w').write('x' * 1024 * 1024) for i in range(9)]", "scratch_size"),
        ("[open(f'f{i}', 'w') for i in range(1001)]", "scratch_files"),
        ("[os.mkdir(f'd{i}') for i in range(1001)]", "scratch_files"),
        ("[os.close(tempfile.mkstemp()[0]) for i in range(1001)]", "scratch_files"),
        ("open('big', 'wb').truncate(10 ** 12)", "scratch_size"),
        ("os.truncate(open('t', 'w').name, 10 ** 12)", "scratch_size"),
        ("(lambda f: (f.seek(10 ** 12), f.write(b'x'), f.flush()))(open('sparse', 'wb'))", "scratch_size"),
        ("pathlib.Path('p').write_bytes(bytes(9 * 1024 * 1024))", "scratch_size"),
        ("[os.open('f', os.O_CREAT | os.O_WRONLY) for i in range(65)]", "open_files"),
    ),
)
def test_a_huge_write_fails_with_the_limit_named(body: str, limit: str) -> None:
    with pytest.raises(OSError, match=f"Limits.{limit}"):
        run_tool(_tool(body))


def test_the_limits_are_the_calls_own(rt: Runtime) -> None:
    source = "def small_scratch() -> int:\n    with open('a', 'wb') as file:\n        return file.write(bytes(2000))\n"
    rt.add_tool(source, replace=True, limits=Limits(scratch_size=1000))
    result = rt.call("small_scratch", {})
    assert result.error is not None and "at most 1000 bytes (Limits.scratch_size)" in result.error.message
    rt.add_tool(source, replace=True)
    assert rt.call("small_scratch", {}).output == 2000


def _listing_tool(name: str, then: str = "") -> str:
    return (
        "import os\nopen('/tmp/module-level.txt', 'w').write('from the module')\n"
        f"def {name}() -> list:\n    seen = sorted(os.listdir('/tmp'))\n"
        f"    open('/tmp/{name}.txt', 'w').write('secret')\n{then}    return seen\n"
    )


def test_each_call_starts_empty_and_sees_no_other_calls_files(rt: Runtime) -> None:
    """The next call of the same tool, and a call running while another's files exist (a nested one)."""
    rt.add_tool(_listing_tool("peek"), replace=True)
    outer = _listing_tool(
        "outer", "    inner = tools.peek({})\n    return [seen, inner, sorted(os.listdir('/tmp'))]\n"
    )
    rt.add_tool(outer, replace=True)
    first = rt.call("outer", {})
    second = rt.call("outer", {})
    expected = [["module-level.txt"], ["module-level.txt"], ["module-level.txt", "outer.txt"]]
    assert first.output == second.output == expected
    assert rt.call("peek", {}).output == ["module-level.txt"]


def test_the_environment_is_the_calls_own(rt: Runtime) -> None:
    source = (
        "import os\ndef environment() -> list:\n    before = dict(os.environ)\n"
        "    os.environ['LEFT'] = 'x'\n    return [before, os.getenv('PATH'), os.getenv('HOME', 'none')]\n"
    )
    rt.add_tool(source, replace=True)
    assert rt.call("environment", {}).output == rt.call("environment", {}).output == [{}, None, "none"]


def test_environ_takes_strings_only() -> None:
    for body in ("os.environ.update({'A': 1})", "os.environ.__setitem__(1, 'x')"):
        with pytest.raises((TypeError, PolicyViolation)):
            run_tool(_tool(body))


def test_a_configured_environment_is_each_calls_copy() -> None:
    source = (
        "import os\ndef configured() -> list:\n    seen = [os.environ.get('REGION'), os.getenv('LEFT')]\n"
        "    os.environ['LEFT'] = 'x'\n    os.environ['REGION'] = 'changed'\n    return seen\n"
    )
    for walls in ("all", "process"):
        with Runtime(
            store="memory://", pool_size=1, walls=walls, tool_environment={"REGION": "eu"}
        ) as runtime:
            runtime.add_tool(source)
            assert (
                runtime.call("configured", {}).output == runtime.call("configured", {}).output == ["eu", None]
            )
    with pytest.raises(InvalidArguments):
        Runtime(tool_environment={"A": 1})  # type: ignore[dict-item]


KEEPER = (
    "kept = []\nclass Raw:\n    closed = False\n    def readable(self):\n        return True\n"
    "    def writable(self):\n        return True\n    def seekable(self):\n        return False\n"
    "    def tell(self):\n        return 0\n    def readinto(self, b):\n        kept.append(b.cast('B'))\n        return 0\n"
    "    def write(self, b):\n        kept.append(b.cast('B'))\n        return len(b)\n"
)


@pytest.mark.parametrize(
    "build",
    (
        "type(open('x', 'rb'))(Raw(), 64).read(10)",
        "type(open('x', 'wb'))(Raw(), 64).write(b'x')",
        "type(open('x', 'r+b'))(Raw(), 64).read(10)",
        "open('x', 'rb').__class__(Raw()).read(10)",
        "type(open('x').buffer)(Raw()).read(10)",
        "type(open('x'))(type(open('x', 'rb'))(Raw()))",
        "type(open('x', 'rb').raw)(Raw(), 'x', 'rb', append=False)",
        "type('X', (type(open('x', 'rb')),), {})(Raw())",
    ),
)
def test_no_file_class_is_built_over_the_tools_own_stream(build: str) -> None:
    """The buffered classes hand their raw stream a memoryview of their buffer: a stream of the tool's
    could keep a cast of it and read the buffer once freed (a use-after-free found by this suite)."""
    source = KEEPER + f"def tool():\n    open('x', 'wb').close()\n    {build}\n    return len(kept)\n"
    with pytest.raises((PolicyViolation, TypeError)):
        run_tool(source)


def test_a_file_class_of_the_tool_builds_nothing() -> None:
    source = KEEPER + (
        "class Mine(type(open('x', 'wb'))):\n    pass\n"
        "def tool():\n    return [isinstance(open('x', 'rb'), type(open('x', 'rb'))), Mine(Raw())]\n"
    )
    with pytest.raises(PolicyViolation, match="is not available in toolpen"):
        run_tool(source)


@pytest.mark.parametrize(
    "body",
    (
        "open('n' * 256, 'w')",
        "os.mkdir('é' * 128)",
        "os.makedirs('/'.join(['d' * 200] * 21))",
        "os.rename(open('a', 'w').name, 'x' * 10 ** 7)",
    ),
)
def test_names_are_as_long_as_linux_allows(body: str) -> None:
    """Names are not counted in Limits.scratch_size: they are held to NAME_MAX and PATH_MAX instead."""
    with pytest.raises(OSError, match="File name too long"):
        run_tool(_tool(body))
