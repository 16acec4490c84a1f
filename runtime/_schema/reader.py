"""Tool source text -> ToolSpec, statically with ``ast``: the tool's code never runs on the host."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from runtime._schema.decorators import Overrides, decorator_overrides
from runtime._schema.docstrings import DocInfo, read_docstring
from runtime._schema.fields import FieldInfo, apply_field
from runtime._schema.injected import injected_kind
from runtime._schema.scope import Scope
from runtime._schema.typehints import TypeTranslator
from sandbox.common.diagnostics import Diagnostic
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_source

TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
TOOL_NAME_MAX = 64
_DOC_TYPES = {"str": "str", "string": "str", "int": "int", "integer": "int", "float": "float"}
_DOC_TYPES |= {"number": "float", "bool": "bool", "boolean": "bool", "list": "list", "dict": "dict"}


@dataclass(frozen=True)
class ToolSpec:
    """What a model is told about one tool, and what was found wrong while working it out."""

    name: str
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any] | None
    diagnostics: list[Diagnostic]
    lineno: int
    injected: dict[str, str] = field(default_factory=dict)
    """Parameters the framework fills (name -> kind, ``injected.injected_kind``), not in the schema."""
    entry: str = ""
    """The function to call, when a framework decorator names the tool otherwise (else ``name``)."""
    strict: bool | None = None
    """False when the tool's decorator turns strict schemas off (the Agents SDK's ``strict_mode=False``)."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [diagnostic for diagnostic in self.diagnostics if diagnostic.level == "error"]


def derive_spec(source: str, name: str | None = None) -> ToolSpec:
    """The ToolSpec of the function ``name`` (else the first top-level function) in ``source``."""
    return spec_from_module(parse_tool_source(source), name)


def parse_tool_source(source: str) -> ast.Module:
    """Parse tool source (bounded: ``sandbox.common.parsing``); a syntax error becomes a located ``InvalidSource``."""
    return parse_source(source)


def spec_from_module(module: ast.Module, name: str | None = None) -> ToolSpec:
    """The ToolSpec of an already parsed module (see ``derive_spec``)."""
    scope = Scope.of(module)
    function, overrides = _entry_function(module, scope, name)
    translator = TypeTranslator(scope)
    doc_node = _docstring_node(function)
    doc = read_docstring(ast.get_docstring(function))
    diagnostics = _name_diagnostics(function)
    if doc_node is None and overrides.description is None:
        diagnostics.append(
            _at(
                function,
                "warning",
                f"'{function.name}' has no docstring: the model sees no description",
                "docstring",
            )
        )
    injected = _injected(function, scope)
    if overrides.args_schema is None:
        parameters = _parameters(function, doc, translator, injected)
    else:  # the model's fields are the parameters: the function's own are not what the model sees
        parameters = _args_schema(overrides.args_schema, translator)
    diagnostics.extend(_documented_unknown(function, doc, doc_node))
    returns = _returns(function, scope, doc, diagnostics)
    diagnostics.extend(translator.diagnostics)
    description = doc.description
    if doc.returns:
        description = f"{description}\n\nReturns: {doc.returns}" if description else f"Returns: {doc.returns}"
    tool_name = overrides.name or function.name
    return ToolSpec(
        name=tool_name,
        description=description if overrides.description is None else overrides.description,
        parameters=parameters,
        returns=returns,
        diagnostics=sorted(diagnostics, key=lambda d: (d.line, d.col)),
        lineno=function.lineno,
        injected=injected,
        entry="" if tool_name == function.name else function.name,
        strict=overrides.strict,
    )


def _args_schema(node: ast.expr, translator: TypeTranslator) -> dict[str, Any]:
    """LangChain's ``args_schema=Model``: the parameters are the model's fields (or the JSON Schema
    a literal dict gives)."""
    if isinstance(node, ast.Dict):
        try:
            literal = ast.literal_eval(node)
        except ValueError:  # not a literal: reported below
            literal = None
        if isinstance(literal, dict) and literal.get("type") == "object":
            return literal
    reference = {} if isinstance(node, ast.Dict) else translator.translate(node) or {}
    name = str(reference.get("$ref", "")).rpartition("/")[2]
    model = translator.defs.pop(name, None) if name else None
    if model is None:
        translator.report(
            node,
            "args_schema must name a model class of this file (its fields are the parameters)"
            " or be a literal JSON Schema object",
        )
        return {"type": "object", "properties": {}}
    schema = {key: value for key, value in model.items() if key not in ("title", "description")}
    if translator.defs:
        schema["$defs"] = translator.defs
    return schema


def _injected(function: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> dict[str, str]:
    """The parameters a framework fills: the first context-typed one of each kind."""
    found: dict[str, str] = {}
    arguments = function.args
    for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
        kind = injected_kind(argument, scope)
        if kind is not None and kind not in found.values():
            found[argument.arg] = kind
    return found


def _entry_function(
    module: ast.Module, scope: Scope, name: str | None
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Overrides]:
    """The tool function (by its name, or the name its framework decorator gives it) and that decorator's overrides."""
    if not scope.functions:
        raise InvalidSource(
            "no top-level function: a tool is a function defined at the top level", line=1, col=1
        )
    for function in scope.functions:
        overrides = decorator_overrides(function, module, scope)
        if name is None or name in (function.name, overrides.name):
            return function, overrides
    available = ", ".join(function.name for function in scope.functions)
    raise InvalidSource(f"no top-level function named '{name}' (found: {available})", line=1, col=1)


SNAKE_CASE_RULE = (
    "CES's Python tools page: \"the tool's name and the name of the main function to call must be the same, "
    'in snake case" (pt-BR: "o nome dela e o nome da função principal a ser chamada precisam ser iguais em '
    'snake case")'
)
"""The rule a non-snake_case name breaks. CES runs such a tool (a working export names one
``intent_mapping_getTagDictionary``), so breaking it is a warning, never a refusal."""


def _name_diagnostics(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Diagnostic]:
    name = function.name
    if len(name) > TOOL_NAME_MAX:
        problem = f"is {len(name)} characters long (at most {TOOL_NAME_MAX})"
        return [_at(function, "error", f"tool name '{name}' {problem}", "name")]
    if TOOL_NAME.match(name):
        return []
    message = (
        f"tool name '{name}' is not snake_case (lowercase letters, digits and '_', starting with a "
        f"letter): {SNAKE_CASE_RULE}; it still runs, as on CES"
    )
    return [_at(function, "warning", message, "name")]


def _parameters(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    doc: DocInfo,
    translator: TypeTranslator,
    injected: dict[str, str],
) -> dict[str, Any]:
    arguments = function.args
    properties: dict[str, Any] = {}
    required: list[str] = []
    for argument in arguments.posonlyargs:
        translator.report(argument, f"positional-only parameter '{argument.arg}' cannot be passed by name")
    positional = arguments.posonlyargs + arguments.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    pairs: list[tuple[ast.arg, ast.expr | None, str]] = [
        (argument, default, "") for argument, default in zip(positional, defaults, strict=True)
    ]
    if arguments.vararg is not None:
        pairs.append((arguments.vararg, None, "*"))
    pairs += [
        (argument, default, "")
        for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    if arguments.kwarg is not None:
        pairs.append((arguments.kwarg, None, "**"))
    for argument, default, star in pairs:
        if argument.arg in injected:
            continue
        schema, info = (
            translator.translate_member(argument.annotation) if argument.annotation else ({}, FieldInfo())
        )
        if default is not None:
            translator.read_value(default, info)
        documented = doc.params.get(argument.arg)
        if info.description is None and documented is not None:
            info.description = documented.description
        _check_documented(argument, info, documented, translator)
        if schema is None:
            continue
        if star:
            # as the OpenAI Agents SDK describes them: *args a list, **kwargs an object, both optional
            # (an empty one by default, like its default_factory)
            schema = _starred_schema(schema, star)
            info.has_factory = True
        properties[argument.arg] = apply_field(schema, info)
        if info.required:
            required.append(argument.arg)
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    if translator.defs:
        result["$defs"] = translator.defs
    return result


def _starred_schema(item: dict[str, Any], star: str) -> dict[str, Any]:
    """``*args: T`` is an array of T; ``**kwargs: T`` an object whose values are T."""
    if star == "*":
        return {"type": "array", "items": item} if item else {"type": "array"}
    return {"type": "object", "additionalProperties": item} if item else {"type": "object"}


def _check_documented(
    argument: ast.arg, info: FieldInfo, documented: Any, translator: TypeTranslator
) -> None:
    """Warn about undocumented parameters and docstrings that contradict the signature."""
    name = argument.arg
    if info.description is None:
        translator.report(
            argument, f"parameter '{name}' is not documented", level="warning", code="docstring"
        )
    if documented is None:
        return
    if documented.is_optional and info.required:
        translator.report(
            argument,
            f"the docstring says '{name}' is optional but it has no default",
            level="warning",
            code="docstring",
        )
    doc_type = _DOC_TYPES.get((documented.type_name or "").strip().lower())
    annotation = ast.unparse(argument.annotation) if argument.annotation else None
    if doc_type and annotation in _DOC_TYPES.values() and doc_type != annotation:
        translator.report(
            argument,
            f"the docstring says '{name}' is {doc_type} but it is annotated {annotation}",
            level="warning",
            code="docstring",
        )


def _documented_unknown(
    function: ast.FunctionDef | ast.AsyncFunctionDef, doc: DocInfo, doc_node: ast.Constant | None
) -> list[Diagnostic]:
    arguments = function.args
    known = {argument.arg for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    known |= {star.arg for star in (arguments.vararg, arguments.kwarg) if star is not None}
    diagnostics = []
    for name in doc.params:
        if name not in known and doc_node is not None:
            line = _docstring_line(doc_node, name)
            message = f"the docstring documents '{name}', which is not a parameter of '{function.name}'"
            diagnostics.append(Diagnostic("warning", message, line, doc_node.col_offset + 1, "docstring"))
    return diagnostics


def _docstring_line(doc_node: ast.Constant, name: str) -> int:
    """The source line where the docstring mentions ``name`` (its first line if it cannot tell)."""
    pattern = re.compile(rf"(^|[\s:@*]){re.escape(name)}\b")
    for offset, text in enumerate(str(doc_node.value).splitlines()):
        if pattern.search(text):
            return doc_node.lineno + offset
    return doc_node.lineno


def _returns(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    scope: Scope,
    doc: DocInfo,
    diagnostics: list[Diagnostic],
) -> dict[str, Any] | None:
    if function.returns is None:
        return None
    translator = TypeTranslator(scope, level="warning")
    schema = translator.translate(function.returns)
    diagnostics.extend(translator.diagnostics)
    if schema == {"type": "null"} and doc.returns:
        diagnostics.append(
            _at(
                function.returns,
                "warning",
                "the docstring documents a return value but the function returns None",
                "docstring",
            )
        )
    if schema is not None and translator.defs:
        schema = {**schema, "$defs": translator.defs}
    return schema


def _docstring_node(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Constant | None:
    first = function.body[0] if function.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.value
    return None


def _at(node: ast.AST, level: Any, message: str, code: str) -> Diagnostic:
    return Diagnostic(level, message, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, code)
