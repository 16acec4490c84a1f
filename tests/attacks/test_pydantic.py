"""pydantic reads attributes by name outside the guards (from_attributes, aliases, raw core schemas)."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, assert_refused_when_added_or_called, attack

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


def test_model_construct_cannot_set_dunders(rt: Runtime) -> None:
    source = (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0\n"
        "def t():\n    return repr(M.model_construct(**{'__class__': int}))\n"
    )
    assert_refused_when_added_or_called(rt, source)
