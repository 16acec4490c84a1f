"""No path from tool code to a pydantic-core validator or serializer built from a schema it can reach.

``TypeAdapter.core_schema`` is the very dict its ``validator`` and ``serializer`` were built from,
and both rebuild themselves from it when copied (``__reduce__``). A tool that edits the schema
(an alias that reads ``__globals__``) and copies the validator would validate past the alias
check of ``sandbox/language/pydantic_wall.py``. Each attack aims at the real builtins through
``ces_requests.request.__globals__``; it must be refused or come back with nothing of them.
"""

from __future__ import annotations

import textwrap

import pytest

from runtime import Runtime
from sandbox.bridges.requests_proxy import make_ces_requests
from sandbox.common.errors import PolicyViolation
from tests.attacks import holds_real_builtins, run_tool

READER = """
import copy
from typing import Any
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

class Reader(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    g: Any = Field(default=None, validation_alias='request')

def edited():
    ta = TypeAdapter(Reader)
    ta.core_schema['schema']['fields']['g']['validation_alias'] = ['request', '__globals__']
    return ta
"""

ATTACKS = {
    "copy-validator": "def tool():\n    return copy.copy(edited().validator).validate_python(ces_requests).g\n",
    "deepcopy-validator": "def tool():\n    return copy.deepcopy(edited().validator).validate_python(ces_requests).g\n",
    "deepcopy-adapter": "def tool():\n    return copy.deepcopy(edited()).validate_python(ces_requests).g\n",
    "copy-adapter-then-validator": (
        "def tool():\n    return copy.copy(copy.copy(edited()).validator).validate_python(ces_requests).g\n"
    ),
    "deepcopy-in-a-container": (
        "def tool():\n    box = copy.deepcopy({'v': [edited().validator]})\n"
        "    return box['v'][0].validate_python(ces_requests).g\n"
    ),
    "edited-schema-reused-by-another-model": (
        "def tool():\n    edited()\n    class Outer(BaseModel):\n        model_config = ConfigDict(from_attributes=True)\n"
        "        inner: Reader\n"
        "    class Holder:\n        inner = ces_requests\n"
        "    return Outer.model_validate(Holder()).inner.g\n"
    ),
    "validator-class-by-type": "def tool():\n    return type(edited().validator)(edited().core_schema)\n",
    "serializer-class-by-type": "def tool():\n    return type(edited().serializer)(edited().core_schema)\n",
    "raw-validator-read-by-pydantic-then-copied": (
        "class Grab(BaseModel):\n    model_config = ConfigDict(from_attributes=True)\n    validator: Any = None\n"
        "def tool():\n    v = Grab.model_validate(edited()).validator\n"
        "    return copy.copy(v).validate_python(ces_requests).g\n"
    ),
    "mutated-field-info-rebuild": (
        "def tool():\n    Reader.model_fields['g'].validation_alias = '__init__'\n"
        "    Reader.model_rebuild(force=True)\n    return Reader.model_validate(ces_requests).g\n"
    ),
}


def _no_rpc(target: str, method: str, params: dict) -> None:
    raise AssertionError("no RPC expected")


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
def test_no_validator_is_rebuilt_from_a_schema_the_tool_edited(attack: str) -> None:
    try:
        result, _ = run_tool(READER + attack, injected={"ces_requests": make_ces_requests(_no_rpc)})
    except PolicyViolation:
        return
    assert not holds_real_builtins(result), result
    assert result is None or not isinstance(result, dict), result


def test_a_copied_validator_or_serializer_is_the_same_object() -> None:
    source = READER + (
        "def tool():\n    ta = edited()\n"
        "    return [copy.copy(ta.validator) is ta.validator, copy.deepcopy(ta.serializer) is ta.serializer]\n"
    )
    assert run_tool(source)[0] == [True, True]


def test_serializers_are_checked_like_validators() -> None:
    from sandbox.language.pydantic_wall import check_core_schema

    computed = {"type": "computed-field", "property_name": "__class__", "return_schema": {"type": "any"}}
    with pytest.raises(PolicyViolation, match="__class__"):
        check_core_schema({"type": "model-fields", "fields": {}, "computed_fields": [computed]})


def test_a_deferred_model_is_checked_when_pydantic_builds_it(rt: Runtime) -> None:
    source = textwrap.dedent(
        """
        from typing import Any
        from pydantic import BaseModel, ConfigDict, Field

        class Lazy(BaseModel):
            model_config = ConfigDict(defer_build=True, from_attributes=True)
            g: Any = Field(default=None, validation_alias="__init__")

        def lazy_alias() -> str:
            return repr(Lazy.model_validate(ces_requests).g)
        """
    )
    rt.add_tool(source)
    result = rt.call("lazy_alias", {})
    assert result.error is not None and result.error.kind == "policy", result


ORDINARY = """
from typing import Any
from pydantic import (AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, computed_field,
                      field_serializer, field_validator, model_serializer)

class Price(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    amount: float = Field(alias='amt')
    currency: str = Field(default='EUR', validation_alias=AliasChoices('currency', 'cur'))

    @field_validator('currency')
    @classmethod
    def upper(cls, value: str) -> str:
        return value.upper()

    @field_serializer('amount')
    def rounded(self, value: float, info: Any) -> float:
        return round(value, 1) if info.mode == 'json' else value

    @computed_field
    @property
    def label(self) -> str:
        return f'{self.amount:.2f} {self.currency}'

class Wrapped(BaseModel):
    price: Price

    @model_serializer
    def flat(self) -> dict:
        return {'p': self.price.label}

def tool():
    price = Price.model_validate({'amt': 3.14159, 'cur': 'usd'})
    return [price.model_dump(mode='json', by_alias=True), Wrapped(price=price).model_dump(),
            TypeAdapter(list[int]).validate_python(['1', 2]), TypeAdapter(Price).dump_python(price)['label']]
"""


def test_ordinary_validators_and_serializers_still_work() -> None:
    result, _ = run_tool(ORDINARY)
    assert result == [
        {"amt": 3.1, "currency": "USD", "label": "3.14 USD"},
        {"p": "3.14 USD"},
        [1, 2],
        "3.14 USD",
    ]
