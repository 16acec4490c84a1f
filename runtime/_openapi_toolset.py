"""OpenAPI 3.0/3.1 documents -> endpoint tools, one per operation, called through the HTTP broker.

A tool is named ``<toolset>_<operationId in snake_case>`` (``<method>_<path>`` without one); code
may also call it ``tools.<toolset>_<operationId as written>``, as CES code does (``ces_name``). Its
parameters are the operation's path, query and header parameters (cookie parameters are skipped
with a warning) plus ``body`` for a JSON or form request body. Credentials come from host-side
secrets (``auth={"scheme_name": "secret"}``) and are added by ``invoke`` in the host only; they are
redacted from every error message and from the body the tool gets back.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jsonschema
import yaml

from runtime._http import HttpBroker, HttpRequest, RequestBudget
from runtime._redaction import Redactor
from runtime._schema import ToolSpec
from sandbox.common.diagnostics import Diagnostic
from sandbox.common.errors import HttpFailed, InvalidArguments, InvalidSource

METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
TOOLSET_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
FORM = "application/x-www-form-urlencoded"
EXCERPT = 500
DROPPED_SCHEMA_KEYS = frozenset({"discriminator", "xml", "externalDocs", "example"})


def snake_case(text: str) -> str:
    """``getCartInformation`` -> ``get_cart_information``; ``/carts/{cartId}`` -> ``carts_cart_id``."""
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True)
class Parameter:
    """One path, query or header parameter of an operation."""

    name: str
    location: str
    required: bool


@dataclass(frozen=True, repr=False)
class Credentials:
    """Host-side secrets for one operation: headers and query values, and every form to redact."""

    headers: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Credentials(headers={sorted(self.headers)}, query={sorted(self.query)})"

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``, however the server encoded it (``runtime/_redaction.py``)."""
        return Redactor(self.secrets)(text)


@dataclass(frozen=True)
class Operation:
    """One OpenAPI operation: ``name``, ``spec`` (a ToolSpec) and ``invoke``; registered as an ``EndpointTool``."""

    name: str
    spec: ToolSpec
    method: str
    path: str
    server: str
    parameters: tuple[Parameter, ...]
    body_media_type: str | None = None
    credentials: Credentials = field(default_factory=Credentials)
    ces_name: str = ""
    """``<toolset>_<operationId>`` with the operationId as written (``name`` without an operationId)."""

    def invoke(
        self, args: Mapping[str, Any], *, broker: HttpBroker, budget: RequestBudget, deadline: float
    ) -> Any:
        """Call the operation; JSON comes back parsed, other bodies as text; error statuses raise ``HttpFailed``."""
        try:
            jsonschema.validate(dict(args), self.spec.parameters)
        except jsonschema.ValidationError as exc:
            raise InvalidArguments(f"{self.name}: {exc.message}") from None
        if not self.server.startswith(("http://", "https://")):
            raise HttpFailed(f"invalid url: toolset of {self.name} has no absolute server URL (pass server=)")
        response = broker.fetch(self._request(args), budget=budget, deadline=deadline)
        text = self.credentials.redact(response.text)
        if not 200 <= response.status_code < 300:
            where = f"{self.method.upper()} {self.path}"
            excerpt = text[:EXCERPT] + ("..." if len(text) > EXCERPT else "")
            raise HttpFailed(f"HTTP {response.status_code} {response.reason} from {where}: {excerpt}")
        if not text:
            return None
        if response.is_json:
            try:
                return json.loads(text)
            except ValueError:
                return text
        return text

    def _request(self, args: Mapping[str, Any]) -> HttpRequest:
        """The HTTP request for these (validated) arguments, credentials added."""
        path = self.path
        query: dict[str, Any] = {}
        headers: dict[str, str] = {}
        for param in self.parameters:
            if param.name not in args:
                continue
            value = args[param.name]
            if param.location == "path":
                text = _scalar(value)
                if text in (".", ".."):
                    raise InvalidArguments(f"{self.name}: path parameter {param.name!r} cannot be {text!r}")
                path = path.replace("{" + param.name + "}", quote(text, safe=""))
            elif param.location == "query":
                query[param.name] = [_scalar(v) for v in value] if isinstance(value, list) else _scalar(value)
            else:
                headers[param.name] = _scalar(value)
        query.update(self.credentials.query)
        headers.update(self.credentials.headers)
        body = args.get("body")
        is_form = self.body_media_type == FORM
        return HttpRequest(
            method=self.method.upper(),
            url=self.server.rstrip("/") + path,
            params=query,
            headers=headers,
            json=body if self.body_media_type and not is_form else None,
            data=body if is_form else None,
            sensitive_headers=frozenset(self.credentials.headers),
        )


@dataclass(frozen=True)
class OpenApiToolset:
    """The endpoint tools of one OpenAPI document."""

    name: str
    tools: tuple[Operation, ...]

    @classmethod
    def from_file(
        cls, name: str, path: str | Path, *, server: str | None = None, auth: Mapping[str, str] | None = None
    ) -> OpenApiToolset:
        """Read a YAML or JSON document from a file."""
        try:
            document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise InvalidSource(f"cannot read OpenAPI document {Path(path).name}: {exc}") from None
        return cls.from_dict(name, document, server=server, auth=auth)

    @classmethod
    def from_dict(
        cls,
        name: str,
        document: Mapping[str, Any],
        *,
        server: str | None = None,
        auth: Mapping[str, str] | None = None,
    ) -> OpenApiToolset:
        """Validate a parsed document and build one tool per operation."""
        if not TOOLSET_NAME.match(name):
            raise InvalidSource(f"toolset name {name!r} must be snake_case (a-z, 0-9, _)")
        document = _checked(document)
        tools: dict[str, Operation] = {}
        for path, path_item in (document.get("paths") or {}).items():
            for method in METHODS:
                operation = path_item.get(method)
                if operation is None:
                    continue
                tool = _endpoint(name, document, path, method, path_item, operation, server, auth or {})
                if tool.name in tools:
                    raise InvalidSource(f"two operations of {name} are both named {tool.name!r}")
                tools[tool.name] = tool
        return cls(name=name, tools=tuple(tools.values()))

    def get(self, tool_name: str) -> Operation:
        """The tool with this name; ``KeyError`` otherwise."""
        return next(tool for tool in self.tools if tool.name == tool_name)


def _checked(document: Any) -> dict[str, Any]:
    """The document with internal ``$ref``s resolved, after the validator accepted it."""
    if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith(("3.0", "3.1")):
        raise InvalidSource("not an OpenAPI 3.0 or 3.1 document (the 'openapi' field is missing or older)")
    external = next((ref for ref in _refs(document) if not ref.startswith("#")), None)
    if external is not None:
        raise InvalidSource(f"external $ref {external!r} is not supported (only refs within the document)")
    from openapi_spec_validator import validate  # 0.2 s to import: only when a document is loaded

    try:
        validate(
            _without_unbounded_exclusives(document)
            if str(document["openapi"]).startswith("3.0")
            else document
        )
    except Exception as exc:  # the validator's error classes vary by version; all mean "invalid"
        raise InvalidSource(f"invalid OpenAPI document: {getattr(exc, 'message', exc)}") from None
    return _resolved(document, document, ())


def _without_unbounded_exclusives(node: Any) -> Any:
    """A 3.0 document without the boolean ``exclusiveMinimum``/``exclusiveMaximum`` that have no
    ``minimum``/``maximum`` beside them: such a flag bounds nothing, and CES imports documents
    holding it (Google's fsi-gecx-bundle deploys one, generated by FastAPI), where the 3.0 schema
    (JSON Schema draft 4's dependency) refuses them. Only what is validated; ``_json_schema``
    drops the flag the same way when it lowers the operation's schema."""
    if isinstance(node, list):
        return [_without_unbounded_exclusives(value) for value in node]
    if not isinstance(node, dict):
        return node
    unbounded = {
        flag
        for flag, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum"))
        if isinstance(node.get(flag), bool) and limit not in node
    }
    return {key: _without_unbounded_exclusives(value) for key, value in node.items() if key not in unbounded}


def _refs(node: Any) -> list[str]:
    """Every ``$ref`` string in the document."""
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def _resolved(node: Any, document: dict[str, Any], stack: tuple[str, ...]) -> Any:
    """``node`` with internal refs inlined; a recursive ref becomes an open schema ``{}``."""
    if isinstance(node, list):
        return [_resolved(value, document, stack) for value in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in stack:
            return {}
        target = _resolved(_pointer(document, ref), document, (*stack, ref))
        siblings = {k: _resolved(v, document, stack) for k, v in node.items() if k != "$ref"}
        return {**target, **siblings} if isinstance(target, dict) else target
    return {key: _resolved(value, document, stack) for key, value in node.items()}


def _pointer(document: dict[str, Any], ref: str) -> Any:
    """The node a ``#/a/b`` JSON pointer names."""
    node: Any = document
    for token in ref[1:].split("/")[1:]:
        key = unquote(token).replace("~1", "/").replace("~0", "~")
        try:
            node = node[int(key)] if isinstance(node, list) else node[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise InvalidSource(f"$ref {ref!r} points to nothing") from None
    return node


def _endpoint(
    toolset: str,
    document: dict[str, Any],
    path: str,
    method: str,
    path_item: dict[str, Any],
    operation: dict[str, Any],
    server: str | None,
    auth: Mapping[str, str],
) -> Operation:
    """The tool for one operation."""
    operation_id = operation.get("operationId")
    name = f"{toolset}_{snake_case(operation_id) if operation_id else snake_case(f'{method} {path}')}"
    ces_name = f"{toolset}_{re.sub(r'[^A-Za-z0-9_]', '_', operation_id)}" if operation_id else name
    diagnostics: list[Diagnostic] = []
    legacy = str(document["openapi"]).startswith("3.0")
    properties: dict[str, Any] = {}
    required: list[str] = []
    parameters: list[Parameter] = []
    for param in _merged_parameters(path_item, operation):
        pname, location = param["name"], param["in"]
        if location == "cookie" or pname in properties:
            why = "cookie parameters are not supported" if location == "cookie" else "the name is taken"
            diagnostics.append(_warning(f"{name}: parameter {pname!r} ({location}) skipped: {why}"))
            continue
        content = param.get("content") or {}
        schema: Any = param.get("schema") or next((media.get("schema", {}) for media in content.values()), {})
        properties[pname] = _json_schema(schema, legacy) | _described(param)
        if param.get("required") or location == "path":
            required.append(pname)
        parameters.append(Parameter(pname, location, bool(param.get("required") or location == "path")))
    body_media_type = None
    body = operation.get("requestBody")
    if body:
        body_media_type, body_schema = _body_media(body.get("content") or {})
        if body_media_type is None:
            kinds = ", ".join(body.get("content") or {})
            diagnostics.append(_warning(f"{name}: request body skipped: only JSON and form bodies ({kinds})"))
        elif "body" in properties:
            raise InvalidSource(f"{name}: a parameter named 'body' clashes with the request body")
        else:
            properties["body"] = _json_schema(body_schema, legacy) | _described(body)
            if body.get("required"):
                required.append("body")
    parameters_schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        parameters_schema["required"] = required
    summary = " ".join(filter(None, (operation.get("summary"), operation.get("description"))))
    spec = ToolSpec(
        name=name,
        description=summary or f"{method.upper()} {path}",
        parameters=parameters_schema,
        returns=None,
        diagnostics=diagnostics,
        lineno=0,
    )
    return Operation(
        name=name,
        spec=spec,
        method=method,
        path=path,
        server=server
        or _server_url(operation.get("servers") or path_item.get("servers") or document.get("servers")),
        parameters=tuple(parameters),
        body_media_type=body_media_type,
        credentials=_credentials(document, operation, auth),
        ces_name=ces_name,
    )


def _merged_parameters(path_item: dict[str, Any], operation: dict[str, Any]) -> list[dict[str, Any]]:
    """Path-level parameters overridden by operation-level ones with the same name and location."""
    merged = {(p["name"], p["in"]): p for p in path_item.get("parameters") or []}
    merged.update({(p["name"], p["in"]): p for p in operation.get("parameters") or []})
    return list(merged.values())


def _body_media(content: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The first JSON (else form) media type of a request body, and its schema."""
    for media_type, media in content.items():
        kind = media_type.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            return "application/json", media.get("schema") or {}
    if FORM in content:
        return FORM, content[FORM].get("schema") or {}
    return None, {}


def _json_schema(schema: Any, legacy: bool) -> dict[str, Any]:
    """An OpenAPI schema as plain JSON Schema: 3.0 ``nullable`` and boolean exclusive bounds rewritten."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DROPPED_SCHEMA_KEYS or (
            legacy and key in ("nullable", "exclusiveMinimum", "exclusiveMaximum")
        ):
            continue
        if key in ("properties", "patternProperties", "$defs") and isinstance(value, dict):
            out[key] = {k: _json_schema(v, legacy) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = _json_schema(value, legacy)
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems") and isinstance(value, list):
            out[key] = [_json_schema(v, legacy) for v in value]
        else:
            out[key] = value
    if legacy:
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if schema.get(bound) is True and limit in out:
                out[bound] = out.pop(limit)
        if schema.get("nullable") is True:
            kind = out.get("type")
            out = (
                {**out, "type": [kind, "null"]}
                if isinstance(kind, str)
                else {"anyOf": [out, {"type": "null"}]}
            )
    return out


def _described(node: dict[str, Any]) -> dict[str, Any]:
    """``{"description": ...}`` when the node has one."""
    return {"description": node["description"]} if node.get("description") else {}


def _server_url(servers: list[dict[str, Any]] | None) -> str:
    """The first server's URL with its variables' defaults filled in (empty without servers)."""
    if not servers:
        return ""
    url = str(servers[0].get("url", ""))
    for variable, spec in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + variable + "}", str(spec.get("default", "")))
    return url


def _credentials(document: dict[str, Any], operation: dict[str, Any], auth: Mapping[str, str]) -> Credentials:
    """The secrets of the first security alternative that ``auth`` fully covers (none otherwise)."""
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    requirements = operation.get("security", document.get("security")) or []
    for alternative in requirements:
        if all(name in auth and name in schemes for name in alternative):
            headers: dict[str, str] = {}
            query: dict[str, str] = {}
            secrets: list[str] = []
            for scheme_name in alternative:
                _apply_scheme(schemes[scheme_name], auth[scheme_name], headers, query, secrets)
            return Credentials(
                headers=headers,
                query=query,
                secrets=tuple(sorted(set(filter(None, secrets)), key=len, reverse=True)),
            )
    return Credentials()


def _apply_scheme(
    scheme: dict[str, Any], secret: str, headers: dict[str, str], query: dict[str, str], secrets: list[str]
) -> None:
    """Add one security scheme's credential to the request parts, and each form it takes to ``secrets``."""
    secrets.append(secret)
    kind = scheme.get("type")
    if kind == "apiKey":
        where, key = scheme.get("in"), scheme["name"]
        if where == "query":
            query[key] = secret
        elif where == "cookie":
            headers["Cookie"] = "; ".join(filter(None, (headers.get("Cookie"), f"{key}={secret}")))
        else:
            headers[key] = secret
    elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        token = base64.b64encode(secret.encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
        secrets.extend([token, secret.partition(":")[2]])
    else:
        headers["Authorization"] = f"Bearer {secret}"


def _scalar(value: Any) -> str:
    """A parameter value as text: JSON booleans lower-case, objects as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _warning(message: str) -> Diagnostic:
    return Diagnostic("warning", message, 0, 0, "openapi")
