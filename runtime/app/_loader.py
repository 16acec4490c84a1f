"""``load_app(path) -> App``: an exported CES application (its zip, or the unpacked folder) read whole.

Layout (paths relative to the app's root folder; references between resources by display name):
``app.json|yaml``, ``environment.json``, ``agents/<A>/<A>.json|yaml``, ``tools/<T>/<T>.json|yaml``,
``toolsets/<S>/<S>.json|yaml``, ``guardrails/<G>/<G>.json|yaml``, ``evaluations/<E>/<E>.json|yaml``; code and texts in the files the resources name. Nothing runs here:
the tools and callbacks are source text for ``runtime.app._register`` and ``runtime.app._crosscheck``.
What stops the app loading is ``InvalidApp`` (the file, the member and what CES expects) or
``BadArchive``; what does not is an ``App.notes`` item, a warning of ``app check``: a member the
CES API's message lacks (``runtime.app._members``), a resource given only as a Terraform
template (``<X>.json.tftpl``: CES imports the file ``templatefile()`` renders from it, so the
resource is skipped until it is rendered), an ``$env_var`` without its URL.
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
from runtime.app._environment import apply_environment, missing_url
from runtime.app._members import LoadNote, unknown_members
from runtime.app._models import (
    AgentResource,
    AppResource,
    EvaluationResource,
    GuardrailResource,
    Message,
    ToolResource,
    ToolsetResource,
)
from sandbox.common.errors import BadArchive, InvalidApp, ToolpenError

APP_FILES = ("app.json", "app.yaml", "app.yml")
WORK_FOLDER = ".toolpen"
"""Inside an unpacked app: what ``toolpen app unpack`` keeps for ``pack`` (never part of the app)."""
PATH_LIKE = re.compile(r"^[\w./ -]+\.(py|txt|ya?ml|json)$")
RESOURCE_SUFFIXES = (".json", ".yaml", ".yml")
TEMPLATE_SUFFIX = ".tftpl"
"""A Terraform template: Terraform's ``templatefile()`` renders ``X.json.tftpl`` into ``X.json``
before the app is imported (Google's fsi-gecx-bundle, ``deployment/terraform/gecx.tf``)."""
_TEMPLATE_VARIABLE = re.compile(r"\$\{([^}]+)\}")

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
    description: str = ""
    """``pythonFunction.description``: what CES showed the model (its docstring, as the console writes it)."""


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
    instruction: str = ""
    """The instruction's text (``instruction`` names a file of the export or holds the text)."""


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
    other_toolsets: dict[str, str] = field(default_factory=dict)
    """Toolsets toolpen does not run (MCP, connectors): display name -> resource path."""
    templates: dict[str, str] = field(default_factory=dict)
    """Resources given only as a Terraform template: ``<folder>/<X>`` -> the template's path."""
    notes: list[LoadNote] = field(default_factory=list)
    """What does not stop the app loading but CES would see otherwise: warnings, file by file."""
    global_instruction: str = ""
    """The text of ``globalInstruction`` (every agent's instruction starts with it)."""

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
            raise InvalidApp(
                f"no agent named {wanted!r} in the app (agents: {known}); {self.resource_path}: rootAgent "
                "or --agent names an agent by its displayName"
            )
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
        raise InvalidApp(
            f"no app.json or app.yaml in the app's root folder {root!r} "
            "(CES exports <App>/app.json|yaml beside agents/, tools/, ...)"
        )
    notes: list[LoadNote] = []
    templates: dict[str, str] = {}
    resource = parse_resource(files, app_path, AppResource, notes)
    global_instruction = ""
    if resource.global_instruction:
        global_instruction, _ = resolve_text(
            files, resource.global_instruction, f"{app_path}: globalInstruction"
        )
    environment = _environment(files)
    agents: dict[str, AppAgent] = {}
    for path in _resource_paths(files, "agents", templates):
        agent = _agent(files, path, notes)
        if agent.display_name in agents:
            raise InvalidApp(
                f"{path}: a second agent named {agent.display_name!r} (CES names agents uniquely)"
            )
        agents[agent.display_name] = agent
    tools: dict[str, AppTool] = {}
    other_tools: dict[str, str] = {}
    for path in _resource_paths(files, "tools", templates):
        tool = _tool(files, path, notes)
        if isinstance(tool, AppTool):
            tools[tool.display_name] = tool
        else:
            other_tools[tool] = path
    toolsets: dict[str, AppToolset] = {}
    other_toolsets: dict[str, str] = {}
    for path in _resource_paths(files, "toolsets", templates):
        toolset = _toolset(files, path, environment, notes)
        if isinstance(toolset, AppToolset):
            toolsets[toolset.display_name] = toolset
        else:
            other_toolsets[toolset] = path
    guardrails = _named(files, "guardrails", _guardrail, templates, notes)
    evaluations = _named(files, "evaluations", _evaluation, templates, notes)
    notes += [_template_note(files, path) for path in sorted(files) if path.endswith(TEMPLATE_SUFFIX)]
    return App(
        root,
        app_path,
        resource,
        agents,
        tools,
        toolsets,
        other_tools,
        environment,
        guardrails,
        evaluations,
        other_toolsets,
        templates,
        sorted(notes, key=lambda note: (note.path, note.line)),
        global_instruction,
    )


def _resource_paths(files: dict[str, bytes], folder: str, templates: dict[str, str]) -> list[str]:
    """``<folder>/<X>/<X>.json|yaml`` for each resource folder ``X``; a folder holding only its
    Terraform template (``<X>.yaml.tftpl``) goes to ``templates``; a folder without either is an error."""
    found: dict[str, str] = {}
    folders: set[str] = set()
    for name in files:
        parts = PurePosixPath(name).parts
        if len(parts) >= 3 and parts[0] == folder:
            folders.add(parts[1])
        if len(parts) != 3 or parts[0] != folder:
            continue
        rendered = parts[2].removesuffix(TEMPLATE_SUFFIX)
        if PurePosixPath(rendered).stem == parts[1] and PurePosixPath(rendered).suffix in RESOURCE_SUFFIXES:
            if rendered == parts[2]:
                found[parts[1]] = name
            else:
                templates.setdefault(f"{folder}/{parts[1]}", name)
    for key in found:
        templates.pop(f"{folder}/{key}", None)
    missing = sorted(
        folders - set(found) - {key.split("/")[1] for key in templates if key.startswith(f"{folder}/")}
    )
    if missing:
        raise InvalidApp(
            f"{folder}/{missing[0]}/: no {missing[0]}.json or {missing[0]}.yaml in the folder "
            f"(CES expects each resource of {folder}/ in {folder}/<name>/<name>.json|yaml)"
        )
    return [found[key] for key in sorted(found)]


def _template_note(files: dict[str, bytes], path: str) -> LoadNote:
    """What a Terraform template of the export is, and whether toolpen read the file it renders."""
    rendered = path.removesuffix(TEMPLATE_SUFFIX)
    names = sorted(set(_TEMPLATE_VARIABLE.findall(files[path].decode("utf-8", "replace"))))
    variables = f" (variables: {', '.join(names)})" if names else ""
    if rendered in files:
        message = (
            f"a Terraform template of {rendered}{variables}, which toolpen reads; CES imports {rendered}"
        )
    else:
        message = (
            f"a Terraform template{variables}: CES imports {rendered}, which Terraform's templatefile() "
            f"renders from it before the import, and the export has no {rendered} yet, so toolpen "
            f"skips what it holds; render it (or write {rendered}) to check and run it"
        )
    return LoadNote(path, message)


def parse_resource(
    files: dict[str, bytes], path: str, model: type[Model], notes: list[LoadNote] | None = None
) -> Model:
    """A resource file validated against its model; ``InvalidApp`` names the file and the members;
    members the CES message lacks go to ``notes`` as warnings."""
    text = _decoded(files[path], path)
    try:
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        message = getattr(model, "CES_MESSAGE", model.__name__)
        raise InvalidApp(
            f"{path}: {_syntax_problem(error)} (CES expects the {message} resource as one "
            f"{'JSON' if path.endswith('.json') else 'YAML'} object)",
            line=_error_line(error),
        ) from None
    if not isinstance(data, dict):
        raise InvalidApp(
            f"{path}: the file must hold an object (CES's {getattr(model, 'CES_MESSAGE', model.__name__)} resource)"
        )
    try:
        resource = model.model_validate(data)
    except ValidationError as error:
        problems = [_problem(item) for item in error.errors()]
        raise InvalidApp(f"{path}: {'; '.join(problems)}") from None
    if notes is not None and isinstance(resource, Message):
        notes += unknown_members(resource, path, text)
    return resource


def _syntax_problem(error: json.JSONDecodeError | yaml.YAMLError) -> str:
    """A parse error as ``not valid JSON at line L, column C: what`` (YAML: its problem and mark)."""
    if isinstance(error, json.JSONDecodeError):
        return f"not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"not valid YAML{where}: {problem}"


def _error_line(error: json.JSONDecodeError | yaml.YAMLError) -> int:
    if isinstance(error, json.JSONDecodeError):
        return error.lineno
    mark = getattr(error, "problem_mark", None)
    return mark.line + 1 if mark is not None else 1


def _problem(item: Any) -> str:
    """One validation error as ``member: what is wrong (what CES expects)``."""
    where = ".".join(str(part) for part in item["loc"]) or "(file)"
    message = item["msg"]
    expected = {
        "missing": "CES requires this member",
        "string_type": "CES expects a string",
        "bool_type": "CES expects true or false",
        "list_type": "CES expects a list",
        "dict_type": "CES expects an object",
        "model_type": "CES expects an object",
        "int_type": "CES expects an integer",
        "int_parsing": "CES expects an integer",
        "float_type": "CES expects a number",
        "float_parsing": "CES expects a number",
        "literal_error": "",
    }.get(item["type"])
    return f"{where}: {message} ({expected})" if expected else f"{where}: {message}"


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
        raise InvalidApp(
            f"{where} names {value!r}, which is not in the export "
            "(CES expects the path of a file of the export, relative to its root folder, or the text itself)"
        )
    return value, None


def _agent(files: dict[str, bytes], path: str, notes: list[LoadNote]) -> AppAgent:
    resource = parse_resource(files, path, AgentResource, notes)
    instruction = ""
    if resource.instruction:
        instruction, _ = resolve_text(files, resource.instruction, f"{path}: instruction")
    callbacks = []
    for kind, item in resource.callbacks():
        items = getattr(resource, f"{kind}_callbacks")
        member = f"{to_camel(kind)}Callbacks[{items.index(item)}].pythonCode"
        source, code_path = resolve_text(files, item.python_code, f"{path}: {member}")
        callbacks.append(AppCallback(kind, source, code_path or path, item.disabled, item.description))
    return AppAgent(resource.display_name, path, resource, callbacks, instruction)


def _tool(files: dict[str, bytes], path: str, notes: list[LoadNote]) -> AppTool | str:
    resource = parse_resource(files, path, ToolResource, notes)
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
        description=function.description,
    )


def _toolset(
    files: dict[str, bytes], path: str, environment: dict[str, Any], notes: list[LoadNote]
) -> AppToolset | str:
    """An OpenAPI toolset, or the display name of another kind (MCP, connector) toolpen only lists."""
    resource = parse_resource(files, path, ToolsetResource, notes)
    if resource.open_api_toolset is None:
        return resource.display_name
    folder = PurePosixPath(path).parent.name
    where = f"{path}: openApiToolset.openApiSchema"
    text, schema_path = resolve_text(files, resource.open_api_toolset.open_api_schema, where)
    unreplaced = missing_url(text, resource.display_name, folder, environment)
    if unreplaced is not None:
        notes.append(LoadNote(schema_path or path, unreplaced))
    document = apply_environment(text, resource.display_name, folder, environment, schema_path or path)
    kind, timeout = _execution(resource.execution_type, resource.timeout, path)
    return AppToolset(resource.display_name, path, schema_path or path, document, kind, timeout)


def _execution(kind: str | None, timeout: str | None, path: str) -> tuple[ExecutionType, float]:
    """A tool's or toolset's execution type and its timeout in seconds (CES's default when unset)."""
    chosen = parse_execution_type(kind)
    try:
        return chosen, ces_timeout(chosen, timeout)
    except ToolpenError as error:
        raise InvalidApp(f'{path}: timeout: {error.message} (CES expects a duration such as "45s")') from None


def _environment(files: dict[str, bytes]) -> dict[str, Any]:
    if "environment.json" not in files:
        return {}
    try:
        environment = json.loads(_decoded(files["environment.json"], "environment.json"))
    except json.JSONDecodeError as error:
        raise InvalidApp(f"environment.json: not valid JSON: {error}") from None
    if not isinstance(environment, dict) or not isinstance(environment.get("toolsets", {}), dict):
        raise InvalidApp(
            'environment.json: must be an object whose "toolsets" member is an object '
            '(CES writes {"toolsets": {"<toolset>": {"openApiToolset": {"url": ...}}}})'
        )
    return environment


Named = TypeVar("Named", "AppGuardrail", "AppEvaluation")


def _named(
    files: dict[str, bytes],
    folder: str,
    read: Callable[[dict[str, bytes], str, list[LoadNote]], Named],
    templates: dict[str, str],
    notes: list[LoadNote],
) -> dict[str, Named]:
    """The resources of ``folder`` by display name; a second one of a name is an error."""
    found: dict[str, Named] = {}
    for path in _resource_paths(files, folder, templates):
        item = read(files, path, notes)
        if item.display_name in found:
            raise InvalidApp(
                f"{path}: a second {folder[:-1]} named {item.display_name!r} (CES names them uniquely)"
            )
        found[item.display_name] = item
    return found


def _guardrail(files: dict[str, bytes], path: str, notes: list[LoadNote]) -> AppGuardrail:
    resource = parse_resource(files, path, GuardrailResource, notes)
    callbacks = []
    for kind, item in resource.code_callback.callbacks() if resource.code_callback else []:
        where = f"{path}: codeCallback.{to_camel(kind)}Callback.pythonCode"
        source, code_path = resolve_text(files, item.python_code, where)
        callbacks.append(AppCallback(kind, source, code_path or path, item.disabled, item.description))
    return AppGuardrail(resource.display_name, path, resource, callbacks)


def _evaluation(files: dict[str, bytes], path: str, notes: list[LoadNote]) -> AppEvaluation:
    resource = parse_resource(files, path, EvaluationResource, notes)
    return AppEvaluation(resource.display_name, path, resource)
