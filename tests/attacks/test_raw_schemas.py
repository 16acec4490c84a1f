"""Core schemas tool code writes itself are checked like the ones pydantic generates.

An object in ``Annotated[...]`` metadata whose ``__getattr__`` answers ``__get_pydantic_core_schema__``
hands pydantic a raw core schema (a class body cannot define that method, but ``__getattr__`` is
an ordinary special method). Field names and aliases were checked there already; a model's
``post_init`` (the name of a method pydantic-core calls on each new instance) and a tagged union's
``discriminator`` (an attribute path under ``from_attributes``) were not.
"""

from __future__ import annotations

import pytest

from attacks import run_tool
from sandbox.common.errors import PolicyViolation

HOOK = """
import typing
from pydantic import TypeAdapter

class Hook:
    def __init__(self, schema):
        self.schema = schema

    def __getattr__(self, name):
        if name == "__get_pydantic_core_schema__":
            return lambda source, handler: self.schema
        raise AttributeError(name)

def tool():
    adapter = TypeAdapter(typing.Annotated[object, Hook(SCHEMA)])
    return adapter.validate_python(INPUT)
"""

SCHEMAS = {
    "tagged-union-frame-path": (
        '{"type": "tagged-union", "choices": {"x": {"type": "any"}}, "from_attributes": True,'
        ' "discriminator": ["gi_frame", "f_back", "f_globals"]}',
        "(x for x in [1])",
    ),
    "tagged-union-private-key": (
        '{"type": "tagged-union", "choices": {"x": {"type": "any"}}, "from_attributes": True,'
        ' "discriminator": "_rpc"}',
        "tools",
    ),
    "tagged-union-choices-of-paths": (
        '{"type": "tagged-union", "choices": {"x": {"type": "any"}}, "from_attributes": True,'
        ' "discriminator": [["kind"], ["__class__", "__init__", "__globals__"]]}',
        "tools",
    ),
    "model-post-init-dunder": (
        '{"type": "model", "cls": Hook, "schema": {"type": "model-fields", "fields": {}},'
        ' "post_init": "__init_subclass__"}',
        "{}",
    ),
    "model-post-init-private": (
        '{"type": "model", "cls": Hook, "schema": {"type": "model-fields", "fields": {}},'
        ' "post_init": "_secret"}',
        "{}",
    ),
}


@pytest.mark.parametrize(("schema", "value"), SCHEMAS.values(), ids=SCHEMAS.keys())
def test_a_raw_schema_naming_attributes_the_guards_refuse_is_refused(schema: str, value: str) -> None:
    source = HOOK.replace("SCHEMA", schema).replace("INPUT", value)
    with pytest.raises(PolicyViolation):
        run_tool(source, injected={"tools": object()})


def test_a_discriminated_union_of_public_fields_still_validates() -> None:
    source = """
from typing import Literal, Union
from pydantic import BaseModel, Field

class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9

class Dog(BaseModel):
    kind: Literal["dog"]

class Owner(BaseModel):
    pet: Union[Cat, Dog] = Field(discriminator="kind")

def tool():
    return Owner.model_validate({"pet": {"kind": "cat"}}).pet.lives, type(Owner(pet={"kind": "dog"}).pet).__name__
"""
    assert run_tool(source)[0] == (9, "Dog")
