"""Attacks on the class-level state of pydantic models tool code did not define (issue 31).

``BaseModel``, the CES classes and the framework views' models are shared by everything the worker
does (its own validation and serialization of the context and results) and, with
``reuse_workers``, by its later calls: writes through pydantic's class attributes
(``model_config``, ``model_fields``, ``model_computed_fields``, ``model_rebuild``) must change
nothing shared, however they are spelled; a tool's own models stay its own to change.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime
from tests.attacks import attack

WRITES = {
    "base-config-item": "BaseModel.model_config['extra'] = 'allow'",
    "base-config-update": "BaseModel.model_config.update(frozen=True)",
    "ces-config": "Part.model_config['extra'] = 'forbid'",
    "ces-config-getattr": "getattr(Part, 'model_' + 'config')['frozen'] = True",
    "instance-config": "Part(text='x').model_config['frozen'] = True",
    "field-default": "Part.model_fields['text'].default = 'planted'",
    "field-default-setattr": "setattr(Part.model_fields['text'], 'default', 'planted')",
    "fields-clear": "Content.model_fields.clear()",
    "fields-pop": "Content.model_fields.pop('parts')",
    "computed": "Part.model_computed_fields['planted'] = None",
    "rebuild": "Part.model_rebuild(force=True)",
    "rebuild-getattr": "getattr(Content, 'model_' + 'rebuild')(force=True)",
}
CHECK = """
def check() -> dict:
    return {
        "base": dict(BaseModel.model_config),
        "part": Part(text="t").model_dump(exclude_none=True),
        "default": Part().text,
        "content": sorted(Content.model_fields),
        "frozen": Part.model_config.get("frozen"),
        "extra": Part.model_config.get("extra"),
    }
"""
CHECK_TOOL = "from pydantic import BaseModel\n" + CHECK.replace("def check", "def tool")


@pytest.fixture(scope="module")
def untouched(rt: Runtime) -> dict:
    """What the check sees in a worker no write reached."""
    answer = attack(rt, CHECK_TOOL).output
    assert answer["part"] == {"text": "t"} and answer["content"] == ["parts", "role"]
    return answer


@pytest.fixture(scope="module")
def reused() -> Iterator[Runtime]:
    """One worker for every call (reuse mode): what a call changed would be there for the next."""
    with Runtime(store="memory://", reuse_workers=True, pool_size=1) as runtime:
        yield runtime


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_a_write_to_a_library_models_class_state_changes_nothing_shared(
    reused: Runtime, untouched: dict, write: str
) -> None:
    source = f"""
from pydantic import BaseModel


def tool() -> dict:
    try:
        {write}
    except Exception as refused:
        outcome = type(refused).__name__
    else:
        outcome = "written"
    return {{"outcome": outcome, **check()}}

{CHECK}
"""
    result = attack(reused, source)
    assert result.success, result.error
    outcome = result.output.pop("outcome")
    assert result.output == untouched, outcome  # in the call itself
    assert attack(reused, CHECK_TOOL).output == untouched  # and in the next call of the same worker


def test_a_tools_own_model_is_its_own_to_change(rt: Runtime) -> None:
    source = """
        from pydantic import BaseModel

        class Settings(BaseModel):
            retries: int = 1

        def tool() -> dict:
            Settings.model_config["frozen"] = True
            Settings.model_fields["retries"].default = 5
            Settings.model_rebuild(force=True)
            return {"frozen": Settings.model_config["frozen"], "retries": Settings().retries}
        """
    assert attack(rt, source).output == {"frozen": True, "retries": 5}
