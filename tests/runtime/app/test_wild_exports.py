"""Real CES exports from public repositories (issue 30), as a user meets them: each loads, `toolpen
app check` reads it, every Python tool runs in the sandbox, and unpack then pack gives the same bytes.

The exports are third-party and not committed: ``TOOLPEN_CES_EXPORTS`` (default
``/work/corpora/ces_exports``) holds them laid out as ``tests/corpora/ces_exports/SOURCES.md``
says, and ``MANIFEST.sha256`` there checks their bytes; absent, these tests skip. The tools'
arguments come from each tool's own schema (a plausible value per type), or from ``ARGUMENTS``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from runtime._runtime import Runtime
from runtime._schema import derive_spec
from runtime.app import App, app_runtime, load_app, pack, unpack
from runtime.app._golden import replay_goldens
from sandbox.common.errors import PolicyViolation
from sandbox.common.walls import WallsMode
from tests.conftest import ROOT

CORPUS = Path(os.environ.get("TOOLPEN_CES_EXPORTS", "/work/corpora/ces_exports"))
MANIFEST = ROOT / "tests/corpora/ces_exports/MANIFEST.sha256"


def manifest() -> dict[str, str]:
    """Path (``<export>/<file>``) -> sha256, as committed."""
    lines = (line.split(maxsplit=1) for line in MANIFEST.read_text().splitlines() if line.strip())
    return {path.strip().removeprefix("./"): digest for digest, path in lines}


EXPORTS = sorted({path.split("/")[0] for path in manifest()})

NOT_YET: dict[tuple[str, str | None], str] = {}
"""Tools that do not run yet for a cause another part of issue 30 takes (None: every tool of the export)."""

WALLS: dict[str, WallsMode] = {"bella_notte": "process"}
"""Exports run behind the process wall alone: bella_notte's slot engine and callbacks call eval(),
which the language wall refuses (``test_bella_notte_under_the_language_wall_names_the_way_out``)."""


def corpus_export(name: str) -> Path:
    folder = CORPUS / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent: lay the exports out from tests/corpora/ces_exports/SOURCES.md")
    return folder


@cache
def loaded(name: str) -> App:
    return load_app(corpus_export(name))


def zipped(folder: Path) -> bytes:
    """The export as the console ships it: one root folder, deterministic entries."""
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = f"{folder.name}/{path.relative_to(folder).as_posix()}"
            archive.writestr(
                zipfile.ZipInfo(name, (2026, 1, 2, 3, 4, 6)), path.read_bytes(), zipfile.ZIP_DEFLATED
            )
    return stream.getvalue()


def plausible(schema: dict[str, Any], name: str = "") -> Any:
    """A value a user might pass for a parameter of this JSON schema."""
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        options = [option for option in schema.get(key, []) if option.get("type") != "null"]
        if options:
            return plausible(options[0], name)
    kind = schema.get("type")
    if kind == "integer":
        return 2
    if kind == "number":
        return 2.5
    if kind == "boolean":
        return True
    if kind == "array":
        return [plausible(schema.get("items") or {"type": "string"}, name)]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {
            key: plausible(value, key)
            for key, value in properties.items()
            if key in schema.get("required", [])
        }
    return {"email": "ana@example.com", "date": "2026-06-01", "phone": "+15550100"}.get(
        name, f"test {name}".strip()
    )


def tool_cases() -> list[Any]:
    cases = []
    for name in EXPORTS:
        if not (CORPUS / name).is_dir():
            continue
        for tool in sorted(load_app(CORPUS / name).tools):
            reason = NOT_YET.get((name, tool)) or NOT_YET.get((name, None))
            marks = [pytest.mark.xfail(reason=f"issue 30: {reason}", strict=True)] if reason else []
            cases.append(pytest.param(name, tool, id=f"{name}-{tool}", marks=marks))
    return cases or [pytest.param("", "", marks=pytest.mark.skip(reason=f"no exports in {CORPUS}"))]


def test_the_local_exports_are_the_manifests_bytes() -> None:
    corpus_export(EXPORTS[0])
    expected = manifest()
    found = {
        path.relative_to(CORPUS).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for name in EXPORTS
        for path in (CORPUS / name).rglob("*")
        if path.is_file()
    }
    assert found == expected


@pytest.mark.parametrize("name", EXPORTS)
def test_every_export_loads_and_check_lists_what_ces_lacks(name: str) -> None:
    app = loaded(name)
    assert app.tools or app.agents
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "app",
        "check",
        str(CORPUS / name),
    ]
    checked = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert checked.returncode in (0, 1), checked.stderr  # 2 would be: the app cannot be read
    assert checked.stdout.splitlines()[-1].endswith(f"Python file(s) of {app.name}")
    for note in app.notes:
        assert f"{note.path}:{note.line}:1: warning: {note.message}" in checked.stdout


def test_the_members_ces_lacks_are_named() -> None:
    notes = {(note.path, note.message.split(":")[0]) for note in loaded("scrapi_sample_support_agent").notes}
    assert ("app.json", "tools") in notes and ("app.json", "_comment_model_settings") in notes
    assert ("tools/lookup_account/lookup_account.json", "_comment_tool_json") in notes
    for name in ("nova_horizon_bot_v2", "cymbal_support_agent"):
        assert loaded(name).resource.error_handling_settings is not None
    templates = {note.path for name in EXPORTS for note in loaded(name).notes if note.path.endswith(".tftpl")}
    assert templates == {
        "environment.json.tftpl",
        "toolsets/banking_service_mcp_toolset/banking_service_mcp_toolset.yaml.tftpl",
    }


@pytest.fixture(scope="module")
def runtime_of() -> Iterator[Callable[[str], Runtime]]:
    """One runtime per export for the module (each test its own session), closed at its end."""
    made: dict[str, Runtime] = {}

    def runtime(name: str) -> Runtime:
        if name not in made:
            made[name] = app_runtime(loaded(name), app_name=f"wild-{name}", walls=WALLS.get(name, "all"))
        return made[name]

    yield runtime
    for rt in made.values():
        rt.close()


@pytest.mark.parametrize(("name", "tool"), tool_cases())
def test_every_python_tool_runs(name: str, tool: str, runtime_of: Callable[[str], Runtime]) -> None:
    app = loaded(name)
    spec = derive_spec(app.tools[tool].source, app.tools[tool].entry)
    args = plausible(spec.parameters)
    result = runtime_of(name).call(spec.name, args, session_id=f"wild-{tool}")
    # the tool ran: it answered, or its own code raised on these made-up arguments
    assert result.success or (result.error is not None and result.error.kind == "tool_error"), json.dumps(
        result.to_dict()
    )


@pytest.mark.parametrize("name", EXPORTS)
def test_unpack_then_pack_gives_the_same_bytes(name: str, tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    archive.write_bytes(zipped(corpus_export(name)))
    unpack(archive, tmp_path / "work")
    assert pack(tmp_path / "work") == archive.read_bytes()


def test_bella_notte_under_the_language_wall_names_the_way_out() -> None:
    with pytest.raises(PolicyViolation) as refused:
        app_runtime(loaded("bella_notte")).close()
    message = refused.value.message
    assert message.startswith("tools/slot_filling_engine/python_function/python_code.py: line 226: eval()")
    assert "--walls process" in message


GOLDEN_AGENT = {"bella_notte": "Reservation_Agent"}
"""Whose callbacks a replay runs (bella_notte's goldens are the reservation agent's flows)."""


@pytest.mark.parametrize("name", [name for name in EXPORTS if name in ("bella_notte", "polymorphic_pizza")])
def test_every_golden_replays(name: str) -> None:
    app = loaded(name)
    goldens = [app.evaluations[key] for key in sorted(app.evaluations)]
    agent, walls = GOLDEN_AGENT.get(name), WALLS.get(name, "all")
    with app_runtime(app, agent=agent, app_name=f"golden-{name}", walls=walls) as rt:
        replayed = replay_goldens(rt, goldens)
    statuses = [check.status for _, checks in replayed for check in checks]
    assert len(replayed) == len(goldens) and "passed" in statuses
    if name == "polymorphic_pizza":
        assert set(statuses) == {"passed"}


def agent_cases() -> list[Any]:
    cases = [
        pytest.param(name, agent, id=f"{name}-{agent}")
        for name in EXPORTS
        if (CORPUS / name).is_dir()
        for agent, held in sorted(load_app(CORPUS / name).agents.items())
        if held.callbacks
    ]
    return cases or [pytest.param("", "", marks=pytest.mark.skip(reason=f"no exports in {CORPUS}"))]


UNDEFINED_IN_CES = {"cymbal_support_agent": "NameError: name 'Optional' is not defined"}
"""Callbacks that fail as Google's own linter says they fail on CES (cxas-scrapi's C008: typing
names used without an import, "will fail with 'name not defined'"); `app check` reports them."""


@pytest.mark.parametrize(("name", "agent"), agent_cases())
def test_every_agent_with_callbacks_plays_a_turn(name: str, agent: str) -> None:
    """A user's first message and a model's text reply: before_agent, before_model, after_model,
    after_agent callbacks as CES runs them, the request carrying its config (the tools declared)."""
    from runtime._turns import play_turn

    app = loaded(name)
    user = {"role": "user", "parts": [{"text": "Hi, I need help"}]}
    script = {"context": {"user_content": user, "state": app.initial_state()}, "calls": [], "reply": "Hello!"}
    with app_runtime(app, agent=agent, app_name=f"turn-{name}", walls=WALLS.get(name, "all")) as rt:
        steps = play_turn(rt, script, "turn")
    assert steps
    failed = [(step, result.error) for step, result in steps if not result.success]
    if name in UNDEFINED_IN_CES:
        [(_, error)] = failed
        assert error is not None and UNDEFINED_IN_CES[name] in error.message
    else:
        assert not failed, failed
