"""The service's own OpenAPI 3.1 document, served at ``/openapi.json``."""

from __future__ import annotations

from typing import Any

from runtime._schema.formats import FORMATS

VERSION = "1"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    meaning = {
        400: "Malformed request (bad JSON, a field of the wrong type, a bad id).",
        401: "No API key, or an unknown one.",
        404: "No such tool or session (for this tenant).",
        409: "A tool of that name exists (send replace: true), or it is a shared tool.",
        413: "The body is larger than the service's limit.",
        422: "The tool source is unusable, or the arguments do not fit the tool's schema.",
        405: "A method the path does not take; the Allow header lists those it does.",
        429: "Rate limit of this API key; retry after the Retry-After header's seconds.",
    }
    return {str(status): _json(_ref("Error"), meaning[status]) for status in (401, 429, *statuses)}


ID_PATTERN = r"^(?!\.\.?$)[A-Za-z0-9._~:@-]{1,200}$"
"""Session ids and call ids the API accepts: not ``.`` or ``..``, which clients and proxies
resolve as path segments (``/v1/sessions/..`` reaches ``/v1``)."""

ID = {"type": "string", "pattern": ID_PATTERN}

SESSION_ID = {"name": "session_id", "in": "path", "required": True, "schema": ID}

SCHEMAS: dict[str, Any] = {
    "ErrorDetail": {
        "type": "object",
        "required": ["kind", "message"],
        "properties": {
            "kind": {"type": "string"},
            "message": {"type": "string"},
            "line": {"type": "integer"},
            "col": {"type": "integer"},
        },
    },
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": _ref("ErrorDetail"),
            "diagnostics": {"type": "array", "items": {"type": "object"}, "description": "422: every error."},
        },
    },
    "ToolRegistration": {
        "type": "object",
        "required": ["source"],
        "properties": {
            "source": {"type": "string", "description": "The tool's Python source."},
            "name": {"type": "string", "description": "The entry function, if not the only one."},
            "defer_loading": {"type": "boolean", "default": False},
            "idempotent": {"type": "boolean", "default": False},
            "read_only": {"type": "boolean", "default": False},
            "replace": {"type": "boolean", "default": False},
        },
    },
    "Tool": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "shared": {"type": "boolean", "description": "Registered with --tools for every tenant."},
            "defer_loading": {"type": "boolean"},
            "idempotent": {"type": "boolean"},
            "read_only": {"type": "boolean"},
            "schema": {"type": "object", "description": "The definition in the requested format."},
            "schemas": {"type": "object", "description": "POST only: the definition in every format."},
        },
    },
    "CallRequest": {
        "type": "object",
        "required": ["tool"],
        "properties": {
            "tool": {"type": "string"},
            "args": {"type": "object", "default": {}},
            "call_id": {**ID, "description": "Idempotency key; or the Idempotency-Key header."},
            "user_id": {"type": "string", "default": "user"},
            "context": {"type": "object", "description": "user_content, invocation_id, agent_name, state."},
        },
    },
    "CallResult": {
        "type": "object",
        "required": ["success", "call_id", "session_id", "replayed"],
        "properties": {
            "success": {"type": "boolean"},
            "output": {},
            "error": {"oneOf": [{"type": "null"}, _ref("ErrorDetail")]},
            "state": {"type": "object"},
            "state_delta": {"type": "object"},
            "logs": {"type": "string"},
            "call_id": {"type": "string"},
            "session_id": {"type": "string"},
            "replayed": {"type": "boolean", "description": "The stored result of an earlier run."},
        },
    },
    "Session": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "app_name": {"type": "string"},
            "user_id": {"type": "string"},
            "state": {"type": "object"},
            "events": {"type": "array", "items": {"type": "object"}},
            "last_update_time": {"type": "number"},
        },
    },
}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of the HTTP API."""
    fmt = {"name": "format", "in": "query", "schema": {"type": "string", "enum": list(FORMATS)}}
    open_ops: dict[str, list[Any]] = {"security": []}
    return {
        "openapi": "3.1.0",
        "info": {"title": "toolpen", "version": VERSION, "description": "Sandboxed inline Python tools."},
        "security": [{"apiKey": []}, {"apiKeyHeader": []}],
        "components": {
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer"},
                "apiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
            "schemas": SCHEMAS,
        },
        "paths": {
            "/healthz": {
                "get": {**open_ops, "summary": "Liveness", "responses": {"200": {"description": "OK"}}}
            },
            "/readyz": {
                "get": {
                    **open_ops,
                    "summary": "Readiness: the store answers and every worker pool can fork",
                    "responses": {"200": {"description": "Ready"}, "503": {"description": "Not ready"}},
                }
            },
            "/metrics": {
                "get": {
                    **open_ops,
                    "summary": "Prometheus metrics (text exposition format)",
                    "responses": {"200": {"description": "Metrics", "content": {"text/plain": {}}}},
                }
            },
            "/openapi.json": {
                "get": {**open_ops, "summary": "This document", "responses": {"200": {"description": "OK"}}}
            },
            "/v1/tools": {
                "post": {
                    "summary": "Register a tool for this tenant (every replica sees it)",
                    "requestBody": _json(_ref("ToolRegistration"), "The tool"),
                    "responses": {"201": _json(_ref("Tool"), "Registered"), **_errors(400, 409, 413, 422)},
                },
                "get": {
                    "summary": "This tenant's tools (its own and the shared ones) in one format",
                    "parameters": [fmt],
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {
                                    "format": {"type": "string"},
                                    "tools": {"type": "array", "items": _ref("Tool")},
                                },
                            },
                            "Tools",
                        ),
                        **_errors(400),
                    },
                },
            },
            "/v1/tools/{name}": {
                "delete": {
                    "summary": "Remove a tool this tenant registered",
                    "parameters": [
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"204": {"description": "Removed"}, **_errors(404, 409)},
                }
            },
            "/v1/sessions": {
                "get": {
                    "summary": "This tenant's sessions, most recent first",
                    "responses": {"200": _json({"type": "object"}, "Session summaries"), **_errors()},
                }
            },
            "/v1/sessions/{session_id}": {
                "get": {
                    "summary": "A session: state and events",
                    "parameters": [SESSION_ID],
                    "responses": {"200": _json(_ref("Session"), "The session"), **_errors(400, 404)},
                },
                "delete": {
                    "summary": "Delete a session",
                    "parameters": [SESSION_ID],
                    "responses": {"204": {"description": "Deleted"}, **_errors(400, 404)},
                },
            },
            "/v1/sessions/{session_id}/calls": {
                "post": {
                    "summary": "Call a tool in a session (created on first use). A tool's own failure is "
                    "a 200 with success false; a call id already answered returns the stored result.",
                    "parameters": [
                        SESSION_ID,
                        {"name": "Idempotency-Key", "in": "header", "schema": ID},
                    ],
                    "requestBody": _json(_ref("CallRequest"), "The call"),
                    "responses": {
                        "200": _json(_ref("CallResult"), "The result"),
                        **_errors(400, 404, 413, 422),
                    },
                }
            },
        },
    }
