"""Attacks of a hostile tool author through the real ``Runtime`` (worker processes, RPCs, broker).

Each attack must end in a structured error (usually kind ``policy``) without host paths in its
message, and the runtime must keep serving ordinary calls afterwards.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from runtime import Runtime
from runtime.results import ToolResult

PACKAGE_DIR = __file__.rsplit("/tests/", 1)[0]


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime


def attack(rt: Runtime, source: str, args: dict | None = None, **call: object) -> ToolResult:
    tool = rt.add_tool(textwrap.dedent(source), replace=True)
    return rt.call(tool.name, args or {}, **call)


def assert_refused(rt: Runtime, result: ToolResult, kind: str | tuple[str, ...] = "policy") -> None:
    """A structured refusal of ``kind`` naming no host path; the runtime still serves."""
    assert not result.success, result.output
    assert result.error is not None
    assert result.error.kind in ((kind,) if isinstance(kind, str) else kind), result.error
    assert PACKAGE_DIR not in result.error.message
    ok = attack(rt, "def still_ok() -> int:\n    return 41 + 1\n")
    assert ok.success and ok.output == 42


# --- pydantic reads attributes by name outside the guards (from_attributes) ---

PYDANTIC_ALIAS_ATTACKS = {
    "alias-path-globals": """
        from typing import Any
        from pydantic import AliasPath, BaseModel, ConfigDict, Field

        class M(BaseModel):
            model_config = ConfigDict(from_attributes=True)
            g: Any = Field(validation_alias=AliasPath("request", "__globals__"))

        def alias_path_globals() -> str:
            g = M.model_validate(ces_requests, from_attributes=True).g
            return g["__builtins__"]["open"]("/etc/hostname").read()
        """,
    "validation-alias-dunder": """
        from typing import Any
        from pydantic import BaseModel, ConfigDict, Field

        class M(BaseModel):
            model_config = ConfigDict(from_attributes=True)
            g: Any = Field(validation_alias="__init__")

        def validation_alias_dunder() -> str:
            return repr(M.model_validate(ces_requests).g)
        """,
    "alias-choices": """
        from typing import Any
        from pydantic import AliasChoices, BaseModel, Field

        class M(BaseModel):
            g: Any = Field(validation_alias=AliasChoices("nope", "__class__"))

        def alias_choices() -> str:
            return repr(M.model_validate(context, from_attributes=True).g)
        """,
    "alias-generator": """
        from typing import Any
        from pydantic import BaseModel, ConfigDict

        class M(BaseModel):
            model_config = ConfigDict(from_attributes=True, alias_generator=lambda name: "__init__")
            g: Any = None

        def alias_generator() -> str:
            return repr(M.model_validate(ces_requests).g)
        """,
    "mutated-field-info-rebuild": """
        from typing import Any
        from pydantic import BaseModel, ConfigDict

        class M(BaseModel):
            model_config = ConfigDict(from_attributes=True)
            g: Any = None

        def mutated_field_info_rebuild() -> str:
            M.model_fields["g"].validation_alias = "__init__"
            M.model_rebuild(force=True)
            return repr(M.model_validate(ces_requests).g)
        """,
    "blocked-public-name": """
        from typing import Any
        from pydantic import AliasPath, BaseModel, Field

        class Holder:
            def __init__(self):
                self.gen = (x for x in [1])

        class M(BaseModel):
            g: Any = Field(validation_alias=AliasPath("gen", "gi_frame"))

        def blocked_public_name() -> str:
            return repr(M.model_validate(Holder(), from_attributes=True).g)
        """,
    "raw-schema-validator": """
        from pydantic import TypeAdapter

        def raw_schema_validator() -> str:
            cls = type(TypeAdapter(int).validator)
            return repr(cls({"type": "any"}))
        """,
    "raw-schema-serializer": """
        from pydantic import TypeAdapter

        def raw_schema_serializer() -> str:
            return repr(type(TypeAdapter(int).serializer))
        """,
}


@pytest.mark.parametrize("source", PYDANTIC_ALIAS_ATTACKS.values(), ids=PYDANTIC_ALIAS_ATTACKS.keys())
def test_pydantic_cannot_read_private_attributes_for_tool_code(rt: Runtime, source: str) -> None:
    assert_refused(rt, attack(rt, source))


def test_pydantic_from_attributes_with_public_names_still_works(rt: Runtime) -> None:
    source = """
        from pydantic import AliasPath, BaseModel, ConfigDict, Field

        class Row:
            def __init__(self):
                self.name = "a"
                self.meta = {"tags": ["x", "y"]}

        class M(BaseModel):
            model_config = ConfigDict(from_attributes=True)
            name: str
            first_tag: str = Field(validation_alias=AliasPath("meta", "tags", 0))

        def public_from_attributes() -> dict:
            return M.model_validate(Row()).model_dump()
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == {"name": "a", "first_tag": "x"}


# --- real getattr by field name: dataclasses and the real str.format ---


def test_a_dataclass_field_name_cannot_be_rewritten(rt: Runtime) -> None:
    source = """
        import dataclasses

        @dataclasses.dataclass
        class D:
            g: int = 1

        def dataclass_field_rename() -> str:
            dataclasses.fields(D)[0].name = "__reduce_ex__"
            return repr(dataclasses.asdict(D())["__reduce_ex__"](2))
        """
    assert_refused(rt, attack(rt, source))


@pytest.mark.parametrize("decorator", ["@dataclasses.dataclass(init=False)", ""])
def test_a_class_field_named_format_is_refused(rt: Runtime, decorator: str) -> None:
    # asdict/from_attributes would read the real str.format of a str subclass: "{0.__init__...}" walks
    source = f"""
        import dataclasses
        from typing import Any

        {decorator}
        class D(str):
            format: Any = dataclasses.field(init=False)

        def class_field_format() -> str:
            f = dataclasses.asdict(D("{{0.__init__.__globals__[__file__]}}"))["format"]
            return f(ces_requests)
        """
    from runtime.errors import PolicyViolation

    with pytest.raises(PolicyViolation, match="format"):
        attack(rt, source)


# --- exhausting the host: huge state, huge RPC params, forged frames ---


def test_a_huge_state_is_refused_in_the_worker(rt: Runtime) -> None:
    source = """
        def state_flood() -> int:
            context.state["x"] = [0] * 3_000_000
            return 1
        """
    result = attack(rt, source, session_id="review-state-flood")
    assert_refused(rt, result, "output_too_large")
    assert "state" in result.error.message
    assert rt.call("still_ok", {}, session_id="review-state-flood").state == {}


def test_state_grown_call_by_call_is_refused(rt: Runtime) -> None:
    source = """
        def state_grow(n: int) -> int:
            context.state[f"k{n}"] = "x" * 1_500_000
            return n
        """
    results = [attack(rt, source, {"n": n}, session_id="review-state-grow") for n in range(4)]
    assert [r.success for r in results] == [True, True, False, False]
    assert results[2].error.kind == "output_too_large"


@pytest.mark.parametrize(
    "call",
    [
        "tools.still_ok({'x': [0] * 3_000_000})",
        "ces_requests.post('http://127.0.0.1:9/', data='x' * 9_000_000)",
    ],
)
def test_a_huge_rpc_is_refused_in_the_worker(rt: Runtime, call: str) -> None:
    source = f"""
        def rpc_flood() -> str:
            {call}
            return "sent"
        """
    result = attack(rt, source)
    assert_refused(rt, result, ("output_too_large", "tool_error"))  # tools.* failures arrive as ToolCallError
    assert "over the limit" in result.error.message


def test_a_deeply_nested_frame_is_a_protocol_error() -> None:
    from sandbox.wire import ProtocolError, decode

    with pytest.raises(ProtocolError):
        decode(b"[" * 200_000 + b"]" * 200_000)


# --- the deadline and the HTTP broker's decisions (no traffic leaves 127.0.0.0/8) ---


def test_a_resolver_that_never_answers_does_not_hold_the_call_past_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket
    import time

    from runtime import Limits

    real = socket.getaddrinfo

    def hanging(host: str, *args: object, **kwargs: object) -> object:
        if host == "hang.invalid":  # stands for a hostile name server that never answers
            time.sleep(8)
            raise socket.gaierror("no answer")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    source = """
        def slow_dns() -> str:
            try:
                ces_requests.get("http://hang.invalid/")
            except ces_requests.Timeout as error:
                return "timeout: " + str(error)
            return "answered"
        """
    with Runtime(store="memory://", limits=Limits(wall_time=2.0)) as runtime:
        start = time.monotonic()
        result = attack(runtime, source)
        elapsed = time.monotonic() - start
    assert elapsed < 3.5
    assert result.success and result.output.startswith("timeout:"), result


SSRF_URLS = [
    "http://127.0.0.1:8080/",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://10.0.0.1/",
    "http://user:pw@127.0.0.1/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:25/",
]


@pytest.mark.parametrize("url", SSRF_URLS)
def test_ces_requests_refuses_internal_targets_before_connecting(rt: Runtime, url: str) -> None:
    source = f"""
        def ssrf() -> str:
            try:
                ces_requests.get({url!r})
            except ces_requests.RequestDenied as error:
                return "denied: " + str(error)
            return "sent"
        """
    result = attack(rt, source)
    assert result.success and result.output.startswith("denied: refused"), result


# --- attacks that already failed when reviewed (kept so that they keep failing) ---

ALREADY_REFUSED = {
    "tools-closure": "def t():\n    return repr(getattr(tools.anything, '__closure__'))\n",
    "bound-method-self": "def t():\n    return repr(ces_requests.get.__self__)\n",
    "state-snapshot": "def t():\n    return repr(context.state._snapshot)\n",
    "exception-context": "def t():\n    try:\n        tools.nope()\n    except Exception as e:\n        return repr(e.__context__)\n",
    "exit-traceback-frame": (
        "class C:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, t, e, tb):\n        self.f = tb.tb_frame\n        return True\n"
        "def t():\n    c = C()\n    with c:\n        1 / 0\n    return repr(c.f)\n"
    ),
    "hostile-repr-in-fstring": (
        "class H:\n    def __repr__(self):\n        return repr(getattr(self, '__cla' + 'ss__'))\n"
        "def t():\n    return f'{H()!r}'\n"
    ),
    "json-object-hook": "import json\ndef t():\n    return repr(json.JSONDecoder(object_hook=lambda d: getattr(d, '__class__')).decode('{}'))\n",
    "functools-reduce-getattr": "import functools\ndef t():\n    return repr(functools.reduce(getattr, ['__class__', '__base__'], 1))\n",
    "partial-getattr": "import functools\ndef t():\n    return repr(functools.partial(getattr, 1)('__class__'))\n",
    "re-callback": "import re\ndef t():\n    return re.sub('a', lambda m: repr(getattr(m, '__class__')), 'a')\n",
    "model-construct-dunder": (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0\n"
        "def t():\n    return repr(M.model_construct(**{'__class__': int}))\n"
    ),
    "default-factory": (
        "import dataclasses\n@dataclasses.dataclass\nclass D:\n"
        "    x: list = dataclasses.field(default_factory=lambda: [getattr(D, '__init__')])\n"
        "def t():\n    return repr(D())\n"
    ),
    "namedtuple-template-injection": (
        "import collections\ndef t():\n"
        "    return repr(collections.namedtuple('T', ['a', \"b=__import__('os').system('id')\"]))\n"
    ),
    "object-setattr-on-context": "def t():\n    f = getattr(object, '__setattr__')\n    return f(context, 'session_id', 'x')\n",
    "context-write": "def t():\n    context.session_id = 'other'\n",
    "tools-write": "def t():\n    tools.x = 1\n",
}


@pytest.mark.parametrize("source", ALREADY_REFUSED.values(), ids=ALREADY_REFUSED.keys())
def test_already_refused_attacks_stay_refused(rt: Runtime, source: str) -> None:
    from runtime.errors import PolicyViolation

    try:
        result = attack(rt, source)
    except PolicyViolation:
        return  # refused at add_tool (compile time)
    assert_refused(rt, result, ("policy", "tool_error"))  # tool_error: ValueError / read-only AttributeError
