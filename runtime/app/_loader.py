"""``load_app(path) -> App``: an exported CES application (its zip, or the unpacked folder) read whole.

Layout (paths relative to the app's root folder; references between resources by display name):
``app.json|yaml``, ``environment.json``, ``agents/<A>/<A>.json|yaml``, ``tools/<T>/<T>.json|yaml``,
``toolsets/<S>/<S>.json|yaml``, ``guardrails/<G>/<G>.json|yaml``, ``evaluations/<E>/<E>.json|yaml``; code and texts in the files the resources name. Nothing runs here:
the tools and callbacks are source text for ``runtime.app._register`` and ``runtime.app._crosscheck``.
Every problem is ``InvalidApp`` (the file and the member) or ``BadArchive``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel

from runtime._execution import CES_TIMEOUTS, ExecutionType, ces_timeout, parse_execution_type
from runtime.app._archive import ArchiveLimits, read_archive
from runtime.app._environment import apply_environment
from runtime.app._models import (
    AgentResource,
    AppResource,
    EvaluationResource,
    GuardrailResource,
    ToolResource,
    ToolsetResource,
)
from sandbox.common.errors import BadArchive, InvalidApp, ToolpenError

APP_FILES = ("app.json", "app.yaml", "app.yml")
WORK_FOLDER = ".toolpen"
"""Inside an unpacked app: what ``toolpen app unpack`` keeps for ``pack`` (never part of the app)."""
PATH_LIKE = re.compile(r"^[\w./ -]+\.(py|txt|ya?ml|json)$")

Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True)
class AppTool:
    """A Python function tool (keyed by display name; CES derives that from the entry function's name)."""

    display_name: str
    entry: str | None
    source: str
    code_path: str
    resource_path: str
    execution_type: ExecutionType
    timeout: float
    """Seconds: the tool's ``timeout``, else CES's default for its execution type (30 s, 60 s)."""
    fake_source: str | None = None
    fake_path: str | None = None
    fake_enabled: bool = False


@dataclass(frozen=True)
class AppCallback:
    kind: str
    source: str
    code_path: str
    disabled: bool
    description: str


@dataclass(frozen=True)
class AppAgent:
    display_name: str
    resource_path: str
    resource: AgentResource
    callbacks: list[AppCallback]


@dataclass(frozen=True)
class AppToolset:
    """An OpenAPI toolset with ``environment.json`` applied to its document."""

    display_name: str
    resource_path: str
    schema_path: str
    document: dict[str, Any]
    execution_type: ExecutionType = "SYNCHRONOUS"
    timeout: float = CES_TIMEOUTS["SYNCHRONOUS"]


@dataclass(frozen=True)
class AppGuardrail:
    """A guardrail; a code guardrail's callbacks (``decision`` OK / TRIGGER) are Python source."""

    display_name: str
    resource_path: str
    resource: GuardrailResource
    callbacks: list[AppCallback]

    @property
    def enabled(self) -> bool:
        return self.resource.enabled


@dataclass(frozen=True)
class AppEvaluation:
    """An evaluation: a golden conversation or a scenario (read and validated; toolpen does not run it)."""

    display_name: str
    resource_path: str
    resource: EvaluationResource


@dataclass(frozen=True)
class App:
    """An exported application: its resources, code and the files they came from."""

    root: str
    resource_path: str
    resource: AppResource
    agents: dict[str, AppAgent]
    tools: dict[str, AppTool]
    toolsets: dict[str, AppToolset]
    other_tools: dict[str, str] = field(default_factory=dict)
    """Tools of kinds toolpen does not run (client functions, data stores, ...): name -> resource path."""
    environment: dict[str, Any] = field(default_factory=dict)
    guardrails: dict[str, AppGuardrail] = field(default_factory=dict)
    evaluations: dict[str, AppEvaluation] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.resource.display_name

    @property
    def root_agent(self) -> str | None:
        return self.resource.root_agent

    def initial_state(self) -> dict[str, Any]:
        """A new session's state: every declared variable that has a default."""
        return {
            declared.name: declared.default_value
            for declared in self.resource.variable_declarations
            if declared.default_value is not None
        }

    def agent(self, name: str | None = None) -> AppAgent:
        """The agent ``name`` (default: the root agent); ``InvalidApp`` when there is none."""
        wanted = name or self.root_agent
        if wanted is None or wanted not in self.agents:
            known = ", ".join(sorted(self.agents)) or "none"
            raise InvalidApp(f"no agent named {wanted!r} in the app (agents: {known})")
        return self.agents[wanted]


def app_folder(path: Path) -> Path:
    """The folder holding ``app.json``: ``path`` itself, or its one subfolder that holds it."""
    if not any((path / name).is_file() for name in APP_FILES):
        inner = [child for child in path.iterdir() if child.is_dir() and child.name != WORK_FOLDER]
        if len(inner) == 1 and any((inner[0] / name).is_file() for name in APP_FILES):
            return inner[0]
    return path


def read_files(path: Path, limits: ArchiveLimits | None = None) -> tuple[str, dict[str, bytes]]:
    """The root folder name and files of an export given as a zip or as its folder."""
    if path.is_file():
        archive = read_archive(path.read_bytes(), limits)
        return archive.root, archive.files
    if not path.is_dir():
        raise InvalidApp(f"{path}: no such file or folder")
    folder = app_folder(path)
    return folder.name, _folder_files(folder, limits or ArchiveLimits())


def _folder_files(folder: Path, limits: ArchiveLimits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for file in sorted(folder.rglob("*")):
        relative = file.relative_to(folder)
        if relative.parts[0] == WORK_FOLDER or "__pycache__" in relative.parts:
            continue
        if file.is_symlink():
            raise BadArchive(f"{relative.as_posix()}: symbolic links are refused")
        if file.is_file():
            files[relative.as_posix()] = file.read_bytes()
            total += len(files[relative.as_posix()])
            if total > limits.max_bytes or len(files) > limits.max_entries:
                raise BadArchive(
                    f"{folder}: more than {limits.max_bytes} bytes or {limits.max_entries} files"
                )
    return files


def load_app(path: Path | str, limits: ArchiveLimits | None = None) -> App:
    """Read and validate a whole export; the first problem raises ``InvalidApp`` / ``BadArchive``."""
    root, files = read_files(Path(path), limits)
    return app_from_files(root, files)


def app_from_files(root: str, files: dict[str, bytes]) -> App:
    """An ``App`` from its files (paths relative to its root folder)."""
    app_path = next((name for name in APP_FILES if name in files), None)
    if app_path is None:
        raise InvalidApp(f"no app.json or app.yaml in the app's root folder {root!r}")
    resource = parse_resource(files, app_path, AppResource)
    if resource.global_instruction:
        resolve_text(files, resource.global_instruction, f"{app_path}: globalInstruction")
    environment = _environment(files)
    agents: dict[str, AppAgent] = {}
    for path in _resource_paths(files, "agents"):
        agent = _agent(files, path)
        if agent.display_name in agents:
            raise InvalidApp(f"{path}: a second agent named {agent.display_name!r}")
        agents[agent.display_name] = agent
    tools: dict[str, AppTool] = {}
    other_tools: dict[str, str] = {}
    for path in _resource_paths(files, "tools"):
        tool = _tool(files, path)
        if isinstance(tool, AppTool):
            tools[tool.display_name] = tool
        else:
            other_tools[tool] = path
    toolsets: dict[str, AppToolset] = {}
    for path in _resource_paths(files, "toolsets"):
        toolset = _toolset(files, path, environment)
        if toolset is not None:
            toolsets[toolset.display_name] = toolset
    guardrails = _named(files, "guardrails", _guardrail)
    evaluations = _named(files, "evaluations", _evaluation)
    return App(
        root, app_path, resource, agents, tools, toolsets, other_tools, environment, guardrails, evaluations
    )


def _resource_paths(files: dict[str, bytes], folder: str) -> list[str]:
    """``<folder>/<X>/<X>.json|yaml`` for each resource folder ``X``; a folder without one is an error."""
    found: dict[str, str] = {}
    folders: set[str] = set()
    for name in files:
        parts = PurePosixPath(name).parts
        if len(parts) >= 3 and parts[0] == folder:
            folders.add(parts[1])
        is_resource = len(parts) == 3 and parts[0] == folder and PurePosixPath(parts[2]).stem == parts[1]
        if is_resource and PurePosixPath(parts[2]).suffix in (".json", ".yaml", ".yml"):
            found[parts[1]] = name
    missing = sorted(folders - set(found))
    if missing:
        raise InvalidApp(f"{folder}/{missing[0]}/: no {missing[0]}.json or {missing[0]}.yaml in the folder")
    return [found[key] for key in sorted(found)]


def parse_resource(files: dict[str, bytes], path: str, model: type[Model]) -> Model:
    """A resource file validated against its model; ``InvalidApp`` names the file and the members."""
    text = _decoded(files[path], path)
    try:
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise InvalidApp(
            f"{path}: not valid {'JSON' if path.endswith('.json') else 'YAML'}: {error}"
        ) from None
    if not isinstance(data, dict):
        raise InvalidApp(f"{path}: the file must hold an object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"]) or "(file)"
            message = "unknown member" if item["type"] == "extra_forbidden" else item["msg"]
            problems.append(f"{where}: {message}")
        raise InvalidApp(f"{path}: {'; '.join(problems)}") from None


def _decoded(content: bytes, path: str) -> str:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidApp(f"{path}: not UTF-8 text") from None


def resolve_text(files: dict[str, bytes], value: str, where: str) -> tuple[str, str | None]:
    """A path-valued member's file text and path, or the member itself when it holds the text inline."""
    if value in files:
        return _decoded(files[value], value), value
    if PATH_LIKE.match(value):
        raise InvalidApp(f"{where} names {value!r}, which is not in the export")
    return value, None


def _agent(files: dict[str, bytes], path: str) -> AppAgent:
    resource = parse_resource(files, path, AgentResource)
    if resource.instruction:
        resolve_text(files, resource.instruction, f"{path}: instruction")
    callbacks = []
    for kind, item in resource.callbacks():
        items = getattr(resource, f"{kind}_callbacks")
        member = f"{to_camel(kind)}Callbacks[{items.index(item)}].pythonCode"
        source, code_path = resolve_text(files, item.python_code, f"{path}: {member}")
        callbacks.append(AppCallback(kind, source, code_path or path, item.disabled, item.description))
    return AppAgent(resource.display_name, path, resource, callbacks)


def _tool(files: dict[str, bytes], path: str) -> AppTool | str:
    resource = parse_resource(files, path, ToolResource)
    folder = PurePosixPath(path).parent.name
    function = resource.python_function
    if function is None:
        return resource.display_name or folder
    source, code_path = resolve_text(files, function.python_code, f"{path}: pythonFunction.pythonCode")
    fake = resource.tool_fake_config
    fake_source = fake_path = None
    if fake is not None and fake.code_block is not None:
        where = f"{path}: toolFakeConfig.codeBlock.pythonCode"
        fake_source, fake_path = resolve_text(files, fake.code_block.python_code, where)
    kind, timeout = _execution(resource.execution_type, resource.timeout, path)
    return AppTool(
        display_name=resource.display_name or function.name or folder,
        entry=function.name or None,
        source=source,
        code_path=code_path or path,
        resource_path=path,
        execution_type=kind,
        timeout=timeout,
        fake_source=fake_source,
        fake_path=fake_path or (path if fake_source else None),
        fake_enabled=bool(fake and fake.enable_fake_mode),
    )


def _toolset(files: dict[str, bytes], path: str, environment: dict[str, Any]) -> AppToolset | None:
    resource = parse_resource(files, path, ToolsetResource)
    if resource.open_api_toolset is None:
        return None
    folder = PurePosixPath(path).parent.name
    where = f"{path}: openApiToolset.openApiSchema"
    text, schema_path = resolve_text(files, resource.open_api_toolset.open_api_schema, where)
    document = apply_environment(text, resource.display_name, folder, environment, schema_path or path)
    kind, timeout = _execution(resource.execution_type, resource.timeout, path)
    return AppToolset(resource.display_name, path, schema_path or path, document, kind, timeout)


def _execution(kind: str | None, timeout: str | None, path: str) -> tuple[ExecutionType, float]:
    """A tool's or toolset's execution type and its timeout in seconds (CES's default when unset)."""
    chosen = parse_execution_type(kind)
    try:
        return chosen, ces_timeout(chosen, timeout)
    except ToolpenError as error:
        raise InvalidApp(f"{path}: timeout: {error.message}") from None


def _environment(files: dict[str, bytes]) -> dict[str, Any]:
    if "environment.json" not in files:
        return {}
    try:
        environment = json.loads(_decoded(files["environment.json"], "environment.json"))
    except json.JSONDecodeError as error:
        raise InvalidApp(f"environment.json: not valid JSON: {error}") from None
    if not isinstance(environment, dict) or not isinstance(environment.get("toolsets", {}), dict):
        raise InvalidApp('environment.json: must be an object whose "toolsets" member is an object')
    return environment


Named = TypeVar("Named", "AppGuardrail", "AppEvaluation")


def _named(
    files: dict[str, bytes], folder: str, read: Callable[[dict[str, bytes], str], Named]
) -> dict[str, Named]:
    """The resources of ``folder`` by display name; a second one of a name is an error."""
    found: dict[str, Named] = {}
    for path in _resource_paths(files, folder):
        item = read(files, path)
        if item.display_name in found:
            raise InvalidApp(f"{path}: a second {folder[:-1]} named {item.display_name!r}")
        found[item.display_name] = item
    return found


def _guardrail(files: dict[str, bytes], path: str) -> AppGuardrail:
    resource = parse_resource(files, path, GuardrailResource)
    callbacks = []
    for kind, item in resource.code_callback.callbacks() if resource.code_callback else []:
        where = f"{path}: codeCallback.{to_camel(kind)}Callback.pythonCode"
        source, code_path = resolve_text(files, item.python_code, where)
        callbacks.append(AppCallback(kind, source, code_path or path, item.disabled, item.description))
    return AppGuardrail(resource.display_name, path, resource, callbacks)


def _evaluation(files: dict[str, bytes], path: str) -> AppEvaluation:
    resource = parse_resource(files, path, EvaluationResource)
    return AppEvaluation(resource.display_name, path, resource)
