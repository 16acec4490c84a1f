"""The tools the zygote runs once before it forks (``warmup``): one for what every tool may use
without an import, and one for each module it loads when a registered tool imports it.

Each runs what tools commonly do with its module, so that the module's lazy imports (``heapq``
under ``Counter.most_common``, ``_strptime`` under ``datetime.strptime``) happen in the zygote,
and the code on those paths is compiled, cached and specialized there, not in every worker.
Each tool's entry is ``rehearsal``.
"""

from __future__ import annotations

import sys
from typing import Any

CORE = r"""
class Point:
    def __init__(self, x, y=0):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x!r}, {self.y!r})"

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


async def coroutine() -> int:
    return 1


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


def rehearsal() -> str:
    out = {
        "match": [match_point(Point(0, 1)), match_point({"x": 2}), match_point([3, 4, 5])],
        "async": run(coroutine()),
        "format": ["{:>5}|{:<3}|{:^5}|{:+.2f}|{!r}".format("a", "b", "c", 1.5, "d"), "%s=%d %.2f" % ("a", 1, 2.0),
                   f"{1234.5:,.2f}", f"{0.25:.1%}", f"{12:08b}", f"{3.14159:e}", round(2.675, 2)],
        "exc": raise_and_describe(),
        "bytes": [bytearray(b"ab").hex(), memoryview(b"ab").tobytes(), bytes.fromhex("6162"),
                  int.from_bytes(b"\x01", "big")],
        "text": ["ß".casefold(), "x".encode("idna"), "é".encode("utf-16"), "é".encode("latin-1").decode("cp1252"),
                 "x".encode("utf-8-sig"), "\\u00e9".encode().decode("unicode_escape")],
        "sorted": sorted([Point(2), Point(1)], key=lambda point: point.x),
    }
    print(out)
    return repr(out)
"""

STANDARD_LIBRARY: dict[str, str] = {
    "abc": r"""
import abc


class Base(abc.ABC):
    @abc.abstractmethod
    def run(self) -> int: ...


class Impl(Base):
    def run(self) -> int:
        return 1


def rehearsal():
    return repr(Impl().run())
""",
    "base64": r"""
import base64


def rehearsal():
    return repr([base64.b64encode(b"x"), base64.b64decode("eA=="), base64.urlsafe_b64decode(b"eA=="),
                 base64.b32encode(b"x"), base64.b16encode(b"x")])
""",
    "bisect": r"""
import bisect


def rehearsal():
    values = [1, 3]
    bisect.insort(values, 2)
    return repr([bisect.bisect_left(values, 2), bisect.bisect_right(values, 2), values])
""",
    "calendar": r"""
import calendar


def rehearsal():
    return repr([calendar.monthrange(2024, 2), calendar.month_name[1], calendar.day_abbr[0], calendar.isleap(2024),
                 calendar.TextCalendar().formatmonth(2024, 1), calendar.monthcalendar(2024, 1)[0],
                 calendar.weekday(2024, 1, 1)])
""",
    "collections": r"""
import collections


def rehearsal():
    counter = collections.Counter("abracadabra")
    Pair = collections.namedtuple("Pair", "a b")
    return repr([counter.most_common(2), counter.most_common(), collections.OrderedDict(a=1).popitem(),
                 collections.deque([1, 2], maxlen=2).appendleft(0), dict(collections.defaultdict(list, a=[1])),
                 collections.ChainMap({"a": 1}, {"b": 2})["b"], Pair(1, 2)._asdict()])
""",
    "contextlib": r"""
import contextlib


@contextlib.contextmanager
def managed():
    yield 1


def rehearsal():
    with managed() as value, contextlib.suppress(KeyError):
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: None)
        with contextlib.nullcontext(1):
            pass
    return repr(value)
""",
    "copy": r"""
import copy


def rehearsal():
    return repr([copy.copy([1]), copy.deepcopy({"a": [1, (2, 3)]})])
""",
    "csv": r"""
import csv, io


def rehearsal():
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["a", "b"])
    writer.writeheader()
    writer.writerow({"a": 1, "b": "x,y"})
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerow([1])
    return repr([list(csv.DictReader(io.StringIO(buffer.getvalue()))), list(csv.reader(["a;b"], delimiter=";")),
                 csv.Sniffer().sniff("a,b\n1,2\n").delimiter])
""",
    "dataclasses": r"""
import dataclasses


@dataclasses.dataclass(order=True)
class Row:
    name: str
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    value: int = 0


def rehearsal():
    rows = sorted([Row("b"), Row("a")])
    return repr([dataclasses.asdict(rows[0]), dataclasses.astuple(rows[1]), dataclasses.replace(rows[0], name="c"),
                 dataclasses.fields(Row)[0].name, hash(Frozen(1)), Row("a") == Row("a")])
""",
    "datetime": r"""
import datetime


def rehearsal():
    moment = datetime.datetime.strptime("2024-02-03 04:05", "%Y-%m-%d %H:%M")
    return repr([moment.isoformat(), datetime.datetime.fromisoformat("2024-01-01T00:00:00+00:00").isoformat(),
                 datetime.date(2024, 1, 1).strftime("%A %d %B %Y %j %U %w %p %Z"), moment + datetime.timedelta(days=1),
                 datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).astimezone().tzinfo is not None,
                 datetime.date.fromisoformat("2024-01-02").weekday(), str(datetime.timedelta(hours=25))])
""",
    "decimal": r"""
import decimal


def rehearsal():
    return repr([str(decimal.Decimal("1.005").quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)),
                 f"{decimal.Decimal('1234.5'):,.2f}", decimal.Decimal(1) / 3, float(decimal.Decimal("2.5"))])
""",
    "difflib": r"""
import difflib


def rehearsal():
    return repr([difflib.SequenceMatcher(None, "abc", "abd").ratio(), difflib.get_close_matches("appel", ["apple"]),
                 list(difflib.unified_diff(["a"], ["b"])), list(difflib.ndiff(["a"], ["b"])),
                 difflib.HtmlDiff().make_table(["a"], ["b"])[:10]])
""",
    "enum": r"""
import enum


class Kind(enum.Enum):
    A = "a"


class Flags(enum.IntFlag):
    X = 1
    Y = 2


class Level(str, enum.Enum):
    LOW = "low"


def rehearsal():
    return repr([Kind("a").name, repr(Kind.A), str(Flags.X | Flags.Y), list(Kind), Level("low").value,
                 Kind.A in Kind])
""",
    "fractions": r"""
import fractions


def rehearsal():
    return repr([str(fractions.Fraction(3, 4) + 1), fractions.Fraction("0.25").limit_denominator(10)])
""",
    "functools": r"""
import functools, operator


@functools.lru_cache(maxsize=None)
def cached(n: int) -> int:
    return n


def wrapper_of(function):
    @functools.wraps(function)
    def inner(*args, **kwargs):
        return function(*args, **kwargs)
    return inner


@functools.total_ordering
class Version:
    def __init__(self, number):
        self.number = number

    def __eq__(self, other):
        return self.number == other.number

    def __lt__(self, other):
        return self.number < other.number


def rehearsal():
    return repr([functools.reduce(operator.mul, [1, 2, 3]), functools.partial(int, base=2)("10"), cached(3),
                 wrapper_of(abs)(1), sorted([3, 1], key=functools.cmp_to_key(lambda a, b: a - b)),
                 Version(1) <= Version(2)])
""",
    "hashlib": r"""
import hashlib


def rehearsal():
    return repr([hashlib.sha256(b"x").hexdigest(), hashlib.md5(b"x").hexdigest(), hashlib.sha1(b"x").hexdigest(),
                 hashlib.blake2b(b"x").hexdigest(), hashlib.sha512(b"x").hexdigest(),
                 hashlib.pbkdf2_hmac("sha256", b"x", b"y", 2).hex()])
""",
    "heapq": r"""
import heapq


def rehearsal():
    heap = [5, 1, 3]
    heapq.heapify(heap)
    return repr([heapq.heappop(heap), heapq.nlargest(2, [1, 3, 2]), heapq.nsmallest(1, [2, 1], key=abs),
                 list(heapq.merge([1, 3], [2]))])
""",
    "hmac": r"""
import hmac


def rehearsal():
    return repr([hmac.new(b"k", b"m", "sha256").hexdigest(), hmac.compare_digest("a", "a")])
""",
    "html": r"""
import html


def rehearsal():
    return repr([html.escape("<a>"), html.unescape("&lt;&eacute;&#x27;")])
""",
    "io": r"""
import io


def rehearsal():
    text = io.StringIO()
    text.write("a\nb")
    return repr([text.getvalue().splitlines(), io.BytesIO(b"x").read()])
""",
    "itertools": r"""
import itertools


def rehearsal():
    return repr([[key for key, _ in itertools.groupby("aab")], list(itertools.combinations("abc", 2)),
                 list(itertools.permutations("ab")), list(itertools.product("ab", repeat=2)),
                 list(itertools.accumulate([1, 2])), list(itertools.islice(itertools.count(), 3)),
                 list(itertools.zip_longest("a", "bc")), list(itertools.pairwise("abc")),
                 list(itertools.starmap(pow, [(2, 3)])), list(itertools.chain.from_iterable([[1], [2]]))])
""",
    "json": r"""
import json


def rehearsal():
    return repr([json.dumps({"b": [1.5, None]}, indent=2, sort_keys=True, ensure_ascii=False, default=str),
                 json.dumps({"a": 1}), json.loads('{"a": [1, 2.5, "\\u00e9", null, true]}')])
""",
    "math": r"""
import math


def rehearsal():
    return repr([math.isclose(1.0, 1.0), math.sqrt(2), math.floor(2.5), math.pi, math.gcd(4, 6)])
""",
    "operator": r"""
import operator


def rehearsal():
    return repr([sorted([("b", 2), ("a", 1)], key=operator.itemgetter(1)), operator.attrgetter("real")(1),
                 operator.methodcaller("upper")("a")])
""",
    "random": r"""
import random


def rehearsal():
    seeded = random.Random(1)
    return repr([seeded.random(), seeded.choice("ab"), seeded.sample(range(10), 3), random.Random("seed").randint(1, 6),
                 seeded.uniform(0, 1), seeded.shuffle([1, 2]), random.random() < 1, random.choice([1])])
""",
    "re": r"""
import re


def rehearsal():
    return repr([re.sub(r"(?P<w>\w+)@(\w+)", r"\g<w> at \2", "a@b"), re.compile(r"\s+", re.I | re.M).split("a b"),
                 re.fullmatch(r"[\w.]+", "a.b") is not None, re.findall(r"\d+", "a1b22"), re.search("b", "ab").span()])
""",
    "secrets": r"""
import secrets


def rehearsal():
    return repr([len(secrets.token_hex(4)), len(secrets.token_urlsafe(4)), secrets.randbelow(3) < 3])
""",
    "statistics": r"""
import statistics


def rehearsal():
    return repr([statistics.mean([1, 2, 3]), statistics.median([1, 2, 3]), statistics.stdev([1, 2, 3]),
                 statistics.mode([1, 1, 2]), statistics.quantiles([1, 2, 3, 4]), statistics.fmean([1.5, 2])])
""",
    "string": r"""
import string


def rehearsal():
    return repr([string.Template("$a").substitute(a=1), string.capwords("a b"), string.ascii_letters[:2]])
""",
    "textwrap": r"""
import textwrap


def rehearsal():
    return repr([textwrap.fill("word " * 30, width=20), textwrap.shorten("a b c d e f", 5), textwrap.dedent("  a"),
                 textwrap.indent("a", "  ")])
""",
    "time": r"""
import time


def rehearsal():
    return repr([time.strftime("%Y", time.strptime("2024", "%Y")), time.time() > 0, time.monotonic() > 0])
""",
    "typing": r"""
import typing
from typing import Any, Literal, NamedTuple, Optional, TypedDict


class Point(NamedTuple):
    x: int
    y: int = 0


class Movie(TypedDict):
    title: str


def rehearsal() -> str:
    point: Optional[Point] = Point(1)._replace(y=2)
    mode: Literal["a"] = "a"
    return repr([point._asdict(), Movie(title="t"), typing.get_type_hints(Point), typing.get_origin(list[int]) is list,
                 typing.get_args(dict[str, Any]), mode])
""",
    "unicodedata": r"""
import unicodedata


def rehearsal():
    return repr([unicodedata.normalize("NFKD", "é"), unicodedata.name("é"), unicodedata.category("a")])
""",
    "urllib.parse": r"""
import urllib.parse


def rehearsal():
    return repr([urllib.parse.urlencode({"a": "b c"}), urllib.parse.urlparse("https://u@h:1/p?q=1#f")._replace(path="/x").geturl(),
                 urllib.parse.parse_qs("a=1&a=2"), urllib.parse.quote_plus("a b&"), urllib.parse.unquote("%C3%A9"),
                 urllib.parse.urljoin("https://a/b/", "c"), urllib.parse.urlsplit("https://a/b").netloc,
                 urllib.parse.quote("a/b c")])
""",
    "uuid": r"""
import uuid


def rehearsal():
    return repr([len(uuid.uuid4().hex), str(uuid.UUID(int=1)), uuid.uuid5(uuid.NAMESPACE_DNS, "x").hex,
                 uuid.uuid3(uuid.NAMESPACE_URL, "x").hex])
""",
    "zoneinfo": r"""
import datetime, zoneinfo


def rehearsal():
    return repr([datetime.datetime(2024, 1, 1, tzinfo=zoneinfo.ZoneInfo("America/New_York")).isoformat(),
                 datetime.datetime.fromisoformat("2024-01-01T00:00:00+00:00").astimezone(zoneinfo.ZoneInfo("UTC")).isoformat()])
""",
}
"""The rehearsal of each module of the standard library that has one (the others are C code, or
rarely used: loaded, not rehearsed)."""

LIBRARIES: dict[str, str] = {
    "pydantic": r"""
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


def rehearsal() -> str:
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
""",
    "numpy": r"""
import numpy as np


def rehearsal() -> str:
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
""",
    "google.protobuf": r"""
from google.protobuf import any_pb2, duration_pb2, json_format, struct_pb2, timestamp_pb2, wrappers_pb2


def rehearsal() -> str:
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
""",
}
"""The rehearsal of each library of ``warmup.LIBRARY_PACKAGES``: its lazy imports happen there."""


def undo_what_tools_could_see() -> None:
    """Set back what the rehearsals changed that a tool's call could read, as a fresh process has it.

    Every worker inherits the zygote's state: a call must not see that a rehearsal ran (a result
    differing from CPython's), nor so learn which modules the pool's other tools, another
    tenant's, import. Found by a red team: ``decimal``'s flags (``Inexact``, ``Rounded``,
    ``InvalidOperation`` from pydantic's rehearsal), ``difflib.HtmlDiff``'s id counter, and
    ``urllib.parse.urlsplit``'s cache (its ``cache_info()``).
    """
    if decimal := sys.modules.get("decimal"):
        decimal.setcontext(decimal.Context())
    if difflib := sys.modules.get("difflib"):
        difflib.HtmlDiff._default_prefix = 0
    if parse := sys.modules.get("urllib.parse"):
        parse.urlsplit.cache_clear()


def job(source: str) -> dict[str, Any]:
    """The job running a rehearsal tool once."""
    return {"source": source, "entry": "rehearsal", "args": {}}
