"""What tool code can reach from an object: the internals of the injected objects, frames, and the
attributes that library code reads by a name the tool chooses (callbacks, dataclass fields)."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, assert_refused_when_added_or_called, attack

OBJECT_GRAPH_ATTACKS = {
    # the injected objects: no internals, no writes
    "tools-closure": "def t():\n    return repr(getattr(tools.anything, '__closure__'))\n",
    "bound-method-self": "def t():\n    return repr(ces_requests.get.__self__)\n",
    "state-snapshot": "def t():\n    return repr(context.state._snapshot)\n",
    "object-setattr-on-context": "def t():\n    f = getattr(object, '__setattr__')\n    return f(context, 'session_id', 'x')\n",
    "context-write": "def t():\n    context.session_id = 'other'\n",
    "tools-write": "def t():\n    tools.x = 1\n",
    # frames, through exceptions and context managers
    "exception-context": "def t():\n    try:\n        tools.nope()\n    except Exception as e:\n        return repr(e.__context__)\n",
    "exit-traceback-frame": (
        "class C:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, t, e, tb):\n        self.f = tb.tb_frame\n        return True\n"
        "def t():\n    c = C()\n    with c:\n        1 / 0\n    return repr(c.f)\n"
    ),
    # library functions that call back a function of the tool's choosing (getattr itself, or a lambda)
    "json-object-hook": "import json\ndef t():\n    return repr(json.JSONDecoder(object_hook=lambda d: getattr(d, '__reduce_ex__')).decode('{}'))\n",
    "functools-reduce-getattr": "import functools\ndef t():\n    return repr(functools.reduce(getattr, ['__class__', '__base__'], 1))\n",
    "partial-getattr": "import functools\ndef t():\n    return repr(functools.partial(getattr, 1)('__reduce_ex__'))\n",
    "re-callback": "import re\ndef t():\n    return re.sub('a', lambda m: repr(getattr(m, '__reduce_ex__')), 'a')\n",
    # class factories that read attributes by a name the tool chooses
    "default-factory": (
        "import dataclasses\n@dataclasses.dataclass\nclass D:\n"
        "    x: list = dataclasses.field(default_factory=lambda: [getattr(D.__init__, '__globals__')])\n"
        "def t():\n    return repr(D())\n"
    ),
    "namedtuple-template-injection": (
        "import collections\ndef t():\n"
        "    return repr(collections.namedtuple('T', ['a', \"b=__import__('os').system('id')\"]))\n"
    ),
}


@pytest.mark.parametrize("source", OBJECT_GRAPH_ATTACKS.values(), ids=OBJECT_GRAPH_ATTACKS.keys())
def test_private_attributes_stay_out_of_reach(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)


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
