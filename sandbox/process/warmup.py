"""What the zygote loads before it forks, so that a worker never reads code from disk.

Every module a worker imported itself would be files read and code run per call. So the zygote
imports every allowed module of the standard library, builds its view, imports what they import
lazily inside functions (``_strptime`` under ``datetime.strptime``, ``heapq`` under
``Counter.most_common``, codecs), loads the common time zones, and runs one tool that uses each
of them (``preload``).

pydantic (with the CES classes built on it) and the libraries of the ``ces`` extra (numpy,
protobuf) are loaded and rehearsed the same way, but only once a registered tool needs one
(``libraries_needed``; ``preload_libraries``, when the pool warms the tool): pydantic is about a
third of the zygote's memory, numpy as much again, and every fork copies the page tables of that
memory, for the many pools whose tools never use them. ``tests/test_warmup.py`` checks that a
worker then imports nothing.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import gc
import importlib
import zoneinfo

from runtime.errors import InvalidSource
from runtime.parsing import parse_source
from sandbox.bridges.ces_context import ces_types, names_in, uses_model_classes
from sandbox.language.modules import ALLOWED_MODULES, LIBRARY_VIEWS, module_view
from sandbox.process.forking import reseed
from sandbox.process.worker import PREPARATION_FRAME, rehearse
from sandbox.wire import decode, encode

LAZY_IMPORTS = (
    # C code imports it through the caller's __import__ (datetime.strptime, time.strptime)
    "_strptime",
    # str.encode / bytes.decode find codecs by importing them
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
"""Zones loaded before the fork (a time zone is a data file; kept alive here, ``ZoneInfo`` finds them cached)."""
_loaded_zones: list[object] = []

EVERY_MODULE_SOURCE = """
import abc, base64, bisect, calendar, collections, contextlib, copy, csv, dataclasses, datetime
import decimal, difflib, enum, fractions, functools, hashlib, heapq, hmac, html, io, itertools, json
import math, operator, random, re, secrets, statistics, string, textwrap, time, typing, unicodedata
import urllib.parse, uuid, zoneinfo
from typing import Any, Literal, NamedTuple, Optional, TypedDict


class Kind(enum.Enum):
    A = "a"


class Flags(enum.IntFlag):
    X = 1
    Y = 2


class Point(NamedTuple):
    x: int
    y: int = 0


class Movie(TypedDict):
    title: str


@dataclasses.dataclass(order=True)
class Row:
    name: str
    tags: list[str] = dataclasses.field(default_factory=list)


class Base(abc.ABC):
    @abc.abstractmethod
    def run(self) -> int: ...


class Impl(Base):
    def run(self) -> int:
        return 1


@functools.lru_cache(maxsize=None)
def cached(n: int) -> int:
    return n


def wrapper_of(function):
    @functools.wraps(function)
    def inner(*args, **kwargs):
        return function(*args, **kwargs)
    return inner


@contextlib.contextmanager
def managed():
    yield 1


async def coroutine() -> int:
    return 1


def every_module() -> str:
    out: dict[str, Any] = {}
    out["point"] = Point(1)._replace(y=2)._asdict()
    out["row"] = dataclasses.asdict(Row("a")) == dataclasses.asdict(copy.deepcopy(Row("a")))
    out["rows"] = sorted([Row("b"), Row("a")])[0].name
    out["impl"] = Impl().run()
    out["flags"] = str(Flags.X | Flags.Y)
    out["kind"] = [Kind("a").name, repr(Kind.A)]
    out["movie"] = Movie(title="t")
    out["dates"] = [
        datetime.datetime.strptime("2024-02-03 04:05", "%Y-%m-%d %H:%M").isoformat(),
        time.strftime("%Y", time.strptime("2024", "%Y")),
        datetime.datetime(2024, 1, 1, tzinfo=zoneinfo.ZoneInfo("America/New_York")).isoformat(),
        datetime.datetime.fromisoformat("2024-01-01T00:00:00+00:00").astimezone(zoneinfo.ZoneInfo("UTC")).isoformat(),
        datetime.date(2024, 1, 1).strftime("%A %d %B %Y %j %U %w %p %Z"),
        calendar.monthrange(2024, 2), calendar.month_name[1], calendar.day_abbr[0], calendar.isleap(2024),
        calendar.TextCalendar().formatmonth(2024, 1), calendar.monthcalendar(2024, 1)[0],
    ]
    out["numbers"] = [
        str(decimal.Decimal("1.005").quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)),
        f"{decimal.Decimal('1234.5'):,.2f}", f"{1234.5:,.2f}", f"{0.25:.1%}", f"{12:08b}", f"{3.14159:e}",
        str(fractions.Fraction(3, 4) + 1), statistics.mean([1, 2, 3]), statistics.median([1, 2, 3]),
        statistics.stdev([1, 2, 3]), statistics.mode([1, 1, 2]), statistics.quantiles([1, 2, 3, 4]),
        math.isclose(1.0, 1.0), round(2.675, 2), random.Random(1).random(), random.Random(1).choice("ab"),
        random.Random(1).sample(range(10), 3), random.Random("seed").randint(1, 6), secrets.token_hex(4),
        secrets.token_urlsafe(4), secrets.randbelow(3), uuid.uuid4().hex, str(uuid.UUID(int=1)),
        uuid.uuid5(uuid.NAMESPACE_DNS, "x").hex, uuid.uuid3(uuid.NAMESPACE_URL, "x").hex,
    ]
    out["text"] = [
        re.sub(r"(?P<w>\\w+)@(\\w+)", r"\\g<w> at \\2", "a@b"), re.compile(r"\\s+", re.I | re.M).split("a b"),
        re.fullmatch(r"[\\w.]+", "a.b") is not None,
        textwrap.fill("word " * 30, width=20), textwrap.shorten("a b c d e f", 5), textwrap.dedent("  a"),
        string.Template("$a").substitute(a=1), string.capwords("a b"), html.escape("<a>"),
        html.unescape("&lt;&eacute;&#x27;"), unicodedata.normalize("NFKD", "é"), unicodedata.name("é"),
        unicodedata.category("a"), "ß".casefold(), "x".encode("idna"), "é".encode("utf-16"),
        "é".encode("latin-1").decode("cp1252"), "x".encode("utf-8-sig"), "\\\\u00e9".encode().decode("unicode_escape"),
        base64.b64encode(b"x"), base64.urlsafe_b64decode(b"eA=="), base64.b32encode(b"x"), base64.b16encode(b"x"),
        hashlib.sha256(b"x").hexdigest(), hashlib.md5(b"x").hexdigest(), hashlib.sha1(b"x").hexdigest(),
        hashlib.blake2b(b"x").hexdigest(), hashlib.sha512(b"x").hexdigest(), hashlib.pbkdf2_hmac("sha256", b"x", b"y", 2).hex(),
        hmac.new(b"k", b"m", "sha256").hexdigest(), hmac.compare_digest("a", "a"),
        urllib.parse.urlencode({"a": "b c"}), urllib.parse.urlparse("https://u@h:1/p?q=1#f")._replace(path="/x").geturl(),
        urllib.parse.parse_qs("a=1&a=2"), urllib.parse.quote_plus("a b&"), urllib.parse.unquote("%C3%A9"),
        urllib.parse.urljoin("https://a/b/", "c"), urllib.parse.urlsplit("https://a/b").netloc,
        difflib.SequenceMatcher(None, "abc", "abd").ratio(), difflib.get_close_matches("appel", ["apple"]),
        list(difflib.unified_diff(["a"], ["b"])), list(difflib.ndiff(["a"], ["b"])),
        difflib.HtmlDiff().make_table(["a"], ["b"])[:10],
        json.dumps({"b": [1.5, None]}, indent=2, sort_keys=True, ensure_ascii=False, default=str),
        json.loads('{"a": [1, 2.5, "\\\\u00e9", null, true]}', parse_float=decimal.Decimal),
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["a", "b"])
    writer.writeheader()
    writer.writerow({"a": 1, "b": "x,y"})
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerow([1])
    out["csv"] = [list(csv.DictReader(io.StringIO(buffer.getvalue()))), list(csv.reader(["a;b"], delimiter=";")),
                  csv.Sniffer().sniff("a,b\\n1,2\\n").delimiter, io.BytesIO(b"x").read()]
    counter = collections.Counter("abracadabra")
    heap = [5, 1, 3]
    heapq.heapify(heap)
    out["collections"] = [
        counter.most_common(2), counter.most_common(), collections.OrderedDict(a=1).popitem(),
        collections.deque([1, 2], maxlen=2).appendleft(0), dict(collections.defaultdict(list, a=[1])),
        collections.ChainMap({"a": 1}, {"b": 2})["b"], heapq.heappop(heap), heapq.nlargest(2, [1, 3, 2]),
        heapq.nsmallest(1, [2, 1], key=abs), list(heapq.merge([1, 3], [2])), bisect.bisect_left([1, 3], 2),
        bisect.insort([1, 3], 2), list(itertools.groupby("aab")) and 1, list(itertools.combinations("abc", 2)),
        list(itertools.permutations("ab")), list(itertools.product("ab", repeat=2)), list(itertools.accumulate([1, 2])),
        list(itertools.islice(itertools.count(), 3)), list(itertools.zip_longest("a", "bc")),
        list(itertools.pairwise("abc")), list(itertools.starmap(pow, [(2, 3)])), list(itertools.batched("abc", 2))
        if hasattr(itertools, "batched") else None,
        functools.reduce(operator.mul, [1, 2, 3]), functools.partial(int, base=2)("10"), cached(3),
        wrapper_of(abs)(1), sorted([("b", 2), ("a", 1)], key=operator.itemgetter(1)), operator.attrgetter("x")(Point(1)),
        functools.cmp_to_key(lambda a, b: a - b) is not None, functools.total_ordering(Row) is Row,
    ]
    with managed() as value, contextlib.suppress(KeyError):
        out["context"] = value
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: None)
        with contextlib.nullcontext(1):
            pass
    out["typing"] = [typing.get_type_hints(Row), typing.get_origin(list[int]) is list, typing.get_args(dict[str, int])]
    out["copy"] = copy.copy([1]), copy.deepcopy({"a": [1]})
    out["match"] = match_point(Point(0, 1))
    out["async"] = run(coroutine())
    out["format"] = ["{:>5}|{:<3}|{:^5}|{:+.2f}|{!r}".format("a", "b", "c", 1.5, "d"), "%s=%d %.2f" % ("a", 1, 2.0)]
    out["exc"] = raise_and_describe()
    out["bytes"] = [bytearray(b"ab").hex(), memoryview(b"ab").tobytes(), bytes.fromhex("6162"), int.from_bytes(b"\\x01", "big")]
    print(out)
    return repr(out)


def run(coroutine):
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value


def match_point(point):
    match point:
        case Point(x=0, y=y):
            return y
        case {"x": x}:
            return x
        case [a, b, *rest]:
            return a
        case _:
            return None


def raise_and_describe():
    try:
        {}["missing"]
    except KeyError as error:
        return f"{type(error).__name__}: {error!r} {error.args}"
"""


EVERY_MODULE_JOB = {"source": EVERY_MODULE_SOURCE, "entry": "every_module", "args": {}}

PYDANTIC_SOURCE = """
import datetime, decimal, enum
from typing import Any, Literal, NamedTuple, Optional
from pydantic import (AnyUrl, BaseModel, ConfigDict, Field, HttpUrl, PrivateAttr, RootModel, SecretStr,
    TypeAdapter, ValidationError, computed_field, field_serializer, field_validator, model_validator,
    root_validator, validate_call, validator)


class Kind(enum.Enum):
    A = "a"


class Point(NamedTuple):
    x: int
    y: int = 0


class Item(BaseModel):
    name: str
    count: int = 0


class Model(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)
    name: str = Field(min_length=1)
    when: datetime.datetime
    day: datetime.date
    price: decimal.Decimal
    kind: Kind = Kind.A
    tags: list[str] = []
    extra: dict[str, Any] = {}
    url: Optional[HttpUrl] = None
    secret: Optional[SecretStr] = None
    mode: Literal["x", "y"] = "x"
    point: Optional[tuple[int, int]] = None
    _cache: dict = PrivateAttr(default_factory=dict)

    @field_validator("name")
    @classmethod
    def check_name(cls, value: str) -> str:
        return value

    @model_validator(mode="after")
    def check_all(self) -> "Model":
        return self

    @field_serializer("price")
    def show_price(self, value: decimal.Decimal) -> str:
        return str(value)

    @computed_field
    @property
    def label(self) -> str:
        return self.name.upper()


class Old(BaseModel):
    a: int = 0

    @validator("a")
    def check_a(cls, value):
        return value

    @root_validator(skip_on_failure=True)
    def check_root(cls, values):
        return values


class Many(RootModel[list[int]]):
    pass


@validate_call
def add(a: int, b: int = 1) -> int:
    return a + b


def pydantic_models() -> str:
    out: dict[str, Any] = {}
    model = Model(name=" n ", when="2024-01-02T03:04:05+01:00", day="2024-01-02", price="1.50",
                  url="https://example.com/a?b=1", secret="s", point=[1, 2])
    out["model"] = model.model_dump(mode="json")
    out["json"] = model.model_dump_json()
    out["schema"] = Model.model_json_schema()
    out["copy"] = model.model_copy(update={"name": "m"}).name
    try:
        Model(name="", when="x", day="y", price="z")
    except ValidationError as error:
        out["errors"] = [str(error), error.errors(), error.json()]
    out["old"] = Old(a=1).model_dump()
    out["root"] = Many([1, 2]).model_dump()
    out["adapter"] = TypeAdapter(list[Point]).validate_python([{"x": 1}, (2, 3)])
    out["adapter_json"] = TypeAdapter(dict[str, datetime.date]).dump_json({"a": datetime.date(2024, 1, 1)})
    out["add"] = add("2")
    out["url"] = str(AnyUrl("http://example.com"))
    item = Item(name="x", count=1)
    context.state["key"].append(item.count)
    out["item"] = [item.model_dump(), repr(item)]
    part = Part(text="x")
    content = Content(role="user", parts=[part, Part.from_text(text="y")])
    out["ces"] = [part.to_json(), content.to_json(), content["parts"][0]["text"], context.user_content,
                  context.get_last_user_input(), LlmResponse(content=content).to_json()]
    print(out)
    return repr(out)
"""

NUMPY_SOURCE = """
import numpy as np


def numpy_functions() -> str:
    values = np.array([3.0, 1.0, 2.0, 8.0])
    grid = np.arange(6).reshape(2, 3)
    rng = np.random.default_rng(1)
    out = [
        np.percentile(values, [10, 90]), np.quantile(values, 0.5), np.median(values), np.histogram(values, 3),
        np.nanmean(values), np.average(values, weights=values), np.polyfit(values, values, 1), np.unique(grid),
        np.linalg.inv(np.eye(2)), np.linalg.eig(np.eye(2)), np.linalg.svd(np.eye(2)), np.linalg.lstsq(np.eye(2), values[:2]),
        np.fft.fft(values), rng.choice(["a", "b"], 2), rng.normal(size=2), rng.permutation(3), np.pad(values, 1),
        np.where(values > 2, "high", "low"), np.array(["b", "a"]).astype("U3"), np.datetime64("2024-01-01") + 1,
        np.vectorize(lambda x: x + 1)(values), np.isclose(values, values), np.corrcoef(values, values), values.std(),
    ]
    return repr(out) + str(grid) + np.array2string(grid, separator=", ") + f"{values.mean():.2f}"
"""
PROTOBUF_SOURCE = """
from google.protobuf import any_pb2, duration_pb2, json_format, struct_pb2, timestamp_pb2, wrappers_pb2


def protobuf_types() -> str:
    message = struct_pb2.Struct()
    message.update({"a": [1, {"b": None}], "c": "d"})
    stamp = timestamp_pb2.Timestamp()
    stamp.FromJsonString("2024-01-02T03:04:05Z")
    packed = any_pb2.Any()
    packed.Pack(wrappers_pb2.StringValue(value="x"))
    out = [
        json_format.MessageToDict(message), json_format.MessageToJson(message),
        json_format.Parse('{"k": [1]}', struct_pb2.Struct()), json_format.ParseDict({"k": 1}, struct_pb2.Struct()),
        struct_pb2.Struct.FromString(message.SerializeToString()), stamp.ToDatetime(), stamp.ToJsonString(),
        duration_pb2.Duration(seconds=5).ToTimedelta(), json_format.MessageToDict(packed), message.ListFields(),
    ]
    return repr(out)
"""
LIBRARY_JOBS = {
    "pydantic": {"source": PYDANTIC_SOURCE, "entry": "pydantic_models", "args": {}},
    "numpy": {"source": NUMPY_SOURCE, "entry": "numpy_functions", "args": {}},
    "google.protobuf": {"source": PROTOBUF_SOURCE, "entry": "protobuf_types", "args": {}},
}
"""What the zygote runs once for each library a tool imports: the library's lazy imports happen there."""
LIBRARY_PACKAGES = {"numpy": "numpy", "google": "google.protobuf", "pydantic": "pydantic"}
"""The top-level package an import statement names -> the library of ``LIBRARY_JOBS`` it leads to."""
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
    }
)
"""Names besides the CES classes' (``ces_context.uses_model_classes``) that lead a tool to pydantic
without an import: what ``context`` gives as CES objects, and a callback's arguments (a callback
is also a function named ``*_callback``, a fake ``fake_*``)."""
_preloaded: set[str] = set()
_LIBC = ctypes.CDLL(None)
SPECIALIZING_CALLS = 8  # CPython 3.11 specializes a function's bytecode after its first 8 calls


def preload() -> None:
    """Import and build everything tool code may use but the libraries, and run the tool that uses it once."""
    for name in sorted(ALLOWED_MODULES - LIBRARY_VIEWS.keys()):
        if name.partition(".")[0] not in LIBRARY_PACKAGES:
            module_view(name)
    for name in LAZY_IMPORTS:
        importlib.import_module(name)
    for key in COMMON_TIME_ZONES:
        with contextlib.suppress(zoneinfo.ZoneInfoNotFoundError):  # a machine without that zone's data
            _loaded_zones.append(zoneinfo.ZoneInfo(key))
    rehearse(EVERY_MODULE_JOB)


def rehearse_preparation() -> None:
    """Run here, more than ``SPECIALIZING_CALLS`` times, what every worker runs before its job: the
    reseed after the fork and its no-op job (``worker.prepare``), the frames' JSON included.

    The first calls of a function in a process write to the pages of its code and of what it
    allocates (CPython counts them, then specializes the bytecode in place): done in each worker,
    every such write copies a page of the zygote; done here first, about 30 fewer per worker.
    """
    done = {"op": "done", "success": True, "output": 1, "state_delta": {"set": {}, "deleted": []}, "logs": ""}
    for _ in range(SPECIALIZING_CALLS + 1):
        reseed()
        rehearse(decode(PREPARATION_FRAME))
        encode(done)


def preload_libraries(source: str) -> bool:
    """Load, view and rehearse each library ``source`` needs (``libraries_needed``), once; whether it loaded one.

    Then the call's path again (``rehearse``, ``rehearse_preparation``): a library's views reset the
    guards' cache of rules per class, and its load leaves the interpreter's caches as it used
    them; about 15 fewer page faults per worker of a pool that loaded numpy.
    """
    loading = sorted(libraries_needed(source) - _preloaded)
    for library in loading:
        if library == "pydantic":
            ces_types()  # pydantic, walled, and the CES classes built on it
        for name in sorted(ALLOWED_MODULES):
            if name == library or name.startswith(library + "."):
                module_view(name)
        rehearse(LIBRARY_JOBS[library])
        _preloaded.add(library)
    if loading:
        rehearse()
        rehearse_preparation()
    return bool(loading)


def settle() -> None:
    """Before the zygote forks: free the warm-up's garbage, hand the C heap's free pages back to the
    system, and freeze what is left, so that workers share its pages and their collector skips it.

    Frozen garbage would stay for good, and free pages would be counted in every worker's share
    of the zygote's memory and copied into every worker's page tables.
    """
    gc.collect()
    _LIBC.malloc_trim(0)
    gc.freeze()


def libraries_needed(source: str) -> set[str]:
    """The installed libraries of ``LIBRARY_JOBS`` that ``source`` leads to (read, not run).

    Any import statement counts, under both walls modes: ``import numpy.linalg``, ``from numpy
    import x``, ``from google import protobuf``. pydantic counts too where the code names what is
    built on it (``PYDANTIC_TRIGGERS``: a CES class, ``context.user_content``, a callback or fake,
    which receive CES objects). A tool that reaches a library otherwise (``importlib.import_module``,
    ``getattr(context, "user_" + "content")``) loads it in its worker, from disk, under
    ``walls="process"``; under the language wall it is refused.
    """
    try:
        tree = parse_source(source)
    except InvalidSource:
        return set()
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.append(node.module)
    packages = {name.partition(".")[0] for name in modules}
    names = names_in(source)
    if (
        names & PYDANTIC_TRIGGERS
        or uses_model_classes(source)
        or any(name.endswith("_callback") for name in names)
    ):
        packages.add("pydantic")
    return {LIBRARY_PACKAGES[package] for package in packages & LIBRARY_PACKAGES.keys()} & ALLOWED_MODULES
