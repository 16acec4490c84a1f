"""``check_app``: every Python file of an app checked as ``toolpen check`` does, plus what only the
whole app shows, read statically:

- an agent naming a tool, toolset, operation, child agent or guardrail the app does not have (the
  app's own ``guardrails`` too); a root agent
  that does not exist; a tool whose display name is reserved (``end_session``, ...) or differs
  from its entry function's name (CES derives one from the other);
- ``tools.<name>`` / ``async_tools.<name>`` naming no tool of the app (Python tools by function
  name, OpenAPI operations as ``<toolset>_<operationId>``, in snake_case or as written);
- a golden evaluation's step naming a tool, toolset operation or agent the app lacks (a warning);
- a code guardrail's callback returning a dict without a literal ``decision`` of OK or TRIGGER;
- what loading noted (``App.notes``: members the CES API lacks, Terraform templates, an
  ``$env_var`` without its URL) as warnings;
- a session variable read (``get_variable("k")``, ``context.state["k"]``, ``.state.get("k")``,
  ``.variables[...]``) that ``variableDeclarations`` does not declare (a warning: a tool of the
  app may set it first).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from runtime._ces_check import RESERVED_TOOL_NAMES, callback_return_warnings, is_state
from runtime._check import check_source
from runtime._openapi_toolset import OpenApiToolset
from runtime._schema import derive_spec
from runtime.app._loader import App, AppAgent, AppGuardrail
from sandbox.common.diagnostics import Diagnostic, Level
from sandbox.common.errors import InvalidSource
from sandbox.common.walls import WallsMode

_TOOL_PROXIES = frozenset({"tools", "async_tools"})
DECISIONS = ("OK", "TRIGGER")
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Finding:
    """A diagnostic in one file of the app (path relative to the app's root folder)."""

    path: str
    diagnostic: Diagnostic

    def format(self) -> str:
        return self.diagnostic.format(self.path)


def _at(path: str, level: Level, message: str, line: int = 1, col: int = 1) -> Finding:
    return Finding(path, Diagnostic(level, message, line, col, "app"))


def code_files(app: App) -> Iterator[tuple[str, str]]:
    """Every Python source of the app with its path: tools, their fakes, every agent's callbacks,
    the code guardrails' callbacks."""
    for tool in app.tools.values():
        yield tool.code_path, tool.source
        if tool.fake_source is not None:
            yield tool.fake_path or tool.resource_path, tool.fake_source
    holders: list[AppAgent | AppGuardrail] = [*app.agents.values(), *app.guardrails.values()]
    for holder in holders:
        for callback in holder.callbacks:
            yield callback.code_path, callback.source


def check_app(app: App, *, walls: WallsMode = "all") -> list[Finding]:
    """Every finding, file by file; errors make the app unusable, warnings may not."""
    findings = [_at(note.path, "warning", note.message, note.line) for note in app.notes]
    guards = {callback.code_path for guardrail in app.guardrails.values() for callback in guardrail.callbacks}
    entries = {tool.code_path: tool.entry for tool in app.tools.values()}
    for path, source in dict(code_files(app)).items():
        diagnostics = check_source(source, walls=walls, entry=entries.get(path))
        if path in guards:
            diagnostics = _guardrail_diagnostics(source, diagnostics)
        findings += [Finding(path, diagnostic) for diagnostic in diagnostics]
    callable_names = _tool_names(app, findings)
    findings += _agent_references(app)
    findings += _evaluation_references(app, callable_names)
    declared = {variable.name for variable in app.resource.variable_declarations}
    for path, source in dict(code_files(app)).items():
        findings += _code_references(path, source, callable_names, declared)
    return findings


def _guardrail_diagnostics(source: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A code guardrail's callbacks answer a dict: ``{"decision": "OK" | "TRIGGER", "reason": ...}``.
    The agent-callback warning about returning a dict does not apply; a dict literal without a
    literal OK / TRIGGER decision is an error."""
    try:
        module = ast.parse(source)
    except SyntaxError:
        return diagnostics
    kept = [d for d in diagnostics if d not in set(callback_return_warnings(module))]
    for node in ast.walk(module):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            decision = next(
                (
                    value
                    for key, value in zip(node.value.keys, node.value.values, strict=True)
                    if _literal(key) == "decision"
                ),
                None,
            )
            if decision is None or (isinstance(decision, ast.Constant) and decision.value not in DECISIONS):
                message = 'a guardrail callback answers {"decision": "OK" | "TRIGGER", "reason": ...}'
                kept.append(Diagnostic("error", message, node.lineno, node.col_offset + 1, "app"))
    return kept


def _tool_names(app: App, findings: list[Finding]) -> set[str]:
    """The names ``tools.<name>`` may use; problems with the tools' own names go to ``findings``."""
    names: set[str] = set()
    for tool in app.tools.values():
        if tool.display_name in RESERVED_TOOL_NAMES:
            findings.append(
                _at(tool.resource_path, "error", f"{tool.display_name!r} is a reserved tool name")
            )
        try:
            spec = derive_spec(tool.source, tool.entry)
        except InvalidSource as error:
            findings.append(_at(tool.resource_path, "error", f"pythonFunction: {error.message}"))
            continue
        names.add(spec.name)
        if spec.name != tool.display_name:
            message = f"displayName {tool.display_name!r} differs from the entry function {spec.name!r}"
            findings.append(
                _at(tool.resource_path, "warning", message + "; tools call it by the function's name")
            )
    for toolset in app.toolsets.values():
        try:
            operations = OpenApiToolset.from_dict(toolset.display_name, toolset.document).tools
            names.update(name for op in operations for name in (op.name, op.ces_name))
        except InvalidSource as error:
            findings.append(_at(toolset.schema_path, "error", error.message))
    return names


def operation_ids(document: dict) -> set[str]:
    """The ``operationId`` of every operation of an OpenAPI document."""
    ids: set[str] = set()
    for item in (document.get("paths") or {}).values():
        for method in _HTTP_METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if isinstance(operation, dict) and isinstance(operation.get("operationId"), str):
                ids.add(operation["operationId"])
    return ids


def _agent_references(app: App) -> list[Finding]:
    findings: list[Finding] = []
    if app.root_agent is not None and app.root_agent not in app.agents:
        findings.append(
            _at(
                app.resource_path,
                "error",
                f"rootAgent {app.root_agent!r} is no agent of the app (CES expects the displayName of an agent in agents/)",
            )
        )
    for name in app.resource.guardrails:
        if name not in app.guardrails:
            findings.append(
                _at(
                    app.resource_path,
                    "error",
                    f"guardrails: no guardrail named {name!r} in the app (CES expects the displayName of one in guardrails/)",
                )
            )
    known_tools = {*app.tools, *app.other_tools, *RESERVED_TOOL_NAMES}
    for agent in app.agents.values():
        resource, path = agent.resource, agent.resource_path
        for name in resource.guardrails:
            if name not in app.guardrails:
                findings.append(
                    _at(
                        path,
                        "error",
                        f"guardrails: no guardrail named {name!r} in the app (CES expects the displayName of one in guardrails/)",
                    )
                )
        for name in resource.tools:
            if name not in known_tools:
                findings.append(
                    _at(
                        path,
                        "error",
                        f"tools: no tool named {name!r} in the app (CES expects the displayName of a tool in tools/, or a system tool)",
                    )
                )
        for child in resource.child_agents:
            if child not in app.agents:
                findings.append(
                    _at(
                        path,
                        "error",
                        f"childAgents: no agent named {child!r} in the app (CES expects the displayName of an agent in agents/)",
                    )
                )
        for use in resource.toolsets:
            toolset = app.toolsets.get(use.toolset)
            if use.toolset in app.other_toolsets:
                continue
            if toolset is None:
                findings.append(_missing_toolset(app, path, use.toolset))
                continue
            for missing in sorted(set(use.tool_ids) - operation_ids(toolset.document)):
                message = f"toolsets: toolset {use.toolset!r} has no operation {missing!r}"
                findings.append(_at(path, "error", message))
    return findings


def _missing_toolset(app: App, path: str, name: str) -> Finding:
    """An agent's toolset that is not in the app: a warning when a Terraform template holds it."""
    template = app.templates.get(f"toolsets/{name}")
    if template is not None:
        message = (
            f"toolsets: toolset {name!r} is only the Terraform template {template}; render it to check it"
        )
        return _at(path, "warning", message)
    return _at(
        path,
        "error",
        f"toolsets: no toolset named {name!r} in the app (CES expects toolsets/{name}/{name}.json|yaml)",
    )


def _evaluation_references(app: App, callable_names: set[str]) -> list[Finding]:
    """Golden steps naming a tool, toolset operation or agent the app does not have (warnings:
    the console keeps such an evaluation, marked invalid)."""
    findings: list[Finding] = []
    tools = {*callable_names, *app.tools, *app.other_tools, *RESERVED_TOOL_NAMES}
    for evaluation in app.evaluations.values():
        golden = evaluation.resource.golden
        steps = [step for turn in golden.turns for step in turn.steps] if golden else []
        for step in steps:
            expectation = step.expectation
            calls = (
                [expectation.tool_call, expectation.tool_response, expectation.mock_tool_response]
                if expectation
                else []
            )
            for call in filter(None, calls):
                problem = _missing_tool(app, tools, call)
                if problem:
                    findings.append(_at(evaluation.resource_path, "warning", problem))
            transfers = [step.agent_transfer, expectation.agent_transfer if expectation else None]
            for transfer in filter(None, transfers):
                target = transfer.get("targetAgent")
                if isinstance(target, str) and target not in app.agents:
                    findings.append(
                        _at(evaluation.resource_path, "warning", f"agentTransfer: no agent named {target!r}")
                    )
    return findings


def _missing_tool(app: App, tools: set[str], call: dict) -> str | None:
    """What a golden's ``toolCall`` / ``toolResponse`` names that the app lacks, if anything."""
    tool, toolset_tool = call.get("tool"), call.get("toolsetTool")
    if isinstance(tool, str) and tool not in tools:
        return f"no tool named {tool!r} in the app"
    if isinstance(toolset_tool, dict):
        toolset = app.toolsets.get(str(toolset_tool.get("toolset")))
        if toolset is None:
            return f"toolsetTool: no toolset named {toolset_tool.get('toolset')!r} in the app"
        if toolset_tool.get("toolId") not in operation_ids(toolset.document):
            return f"toolsetTool: toolset {toolset.display_name!r} has no operation {toolset_tool.get('toolId')!r}"
    return None


def _code_references(path: str, source: str, tools: set[str], declared: set[str]) -> list[Finding]:
    try:
        module = ast.parse(source)
    except SyntaxError:
        return []  # check_source reported it
    findings: list[Finding] = []
    for node in ast.walk(module):
        if not isinstance(node, ast.expr):
            continue
        called = _called_tool(node)
        if called is not None and called not in tools:
            message = f"tools.{called}: no tool of the app is called {called!r}"
            findings.append(_at(path, "error", message, node.lineno, node.col_offset + 1))
        key = _read_key(node)
        if key is not None and key not in declared:
            message = f"state key {key!r} is read but not declared in variableDeclarations"
            findings.append(_at(path, "warning", message, node.lineno, node.col_offset + 1))
    return findings


def _called_tool(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in _TOOL_PROXIES
    ):
        return node.attr
    return None


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _read_key(node: ast.AST) -> str | None:
    """The literal key a read names: ``get_variable("k")``, ``<state>.get("k")``, ``<state>["k"]``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and is_state(node.value):
        return _literal(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = node.func
    if isinstance(function, ast.Name) and function.id == "get_variable":
        return _literal(node.args[0])
    if isinstance(function, ast.Attribute) and function.attr == "get_variable":
        return _literal(node.args[0])
    if isinstance(function, ast.Attribute) and function.attr == "get" and is_state(function.value):
        return _literal(node.args[0])
    return None
