"""The resource files of an exported app, field by field (CX Agent Studio "Export format reference"
and the API's ``App``, ``Agent``, ``Tool``, ``Toolset`` resources; members in camelCase).

Unknown members are errors: a typo (``beforeModelCallback``) would otherwise drop a callback
silently. Settings toolpen does not act on (audio, logging, language, guardrails' bodies) are
typed as objects and kept as they are. A path-valued member (``pythonCode``, ``instruction``,
``openApiSchema``, ``globalInstruction``) names a file of the export; ``runtime.app.loader``
reads it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

ExecutionType = Literal["EXECUTION_TYPE_UNSPECIFIED", "SYNCHRONOUS", "ASYNCHRONOUS"]
Settings = dict[str, Any]


class Resource(BaseModel):
    """camelCase members, unknown ones refused; output-only members of the API accepted."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    name: str | None = None
    etag: str | None = None
    create_time: str | None = None
    update_time: str | None = None


class VariableDeclaration(Resource):
    """A session variable: the default is ``default``, or ``schema.default`` as real exports write it."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    description: str = ""
    schema_: Settings = Field(default_factory=dict, alias="schema")
    default: Any = None

    @property
    def default_value(self) -> Any:
        return self.default if self.default is not None else self.schema_.get("default")


class AppResource(Resource):
    """``app.json`` / ``app.yaml``."""

    display_name: str
    description: str = ""
    pinned: bool = False
    root_agent: str | None = None
    audio_processing_config: Settings | None = None
    logging_settings: Settings | None = None
    guardrails: list[str] = Field(default_factory=list)
    variable_declarations: list[VariableDeclaration] = Field(default_factory=list)
    predefined_variable_declarations: list[Settings] = Field(default_factory=list)
    global_instruction: str | None = None
    language_settings: Settings | None = None
    time_zone_settings: Settings | None = None
    model_settings: Settings | None = None
    tool_execution_mode: Literal["TOOL_EXECUTION_MODE_UNSPECIFIED", "PARALLEL", "SEQUENTIAL"] | None = None
    evaluation_metrics_thresholds: Settings | None = None
    default_channel_profile: Settings | None = None
    data_store_settings: Settings | None = None
    client_certificate_settings: Settings | None = None
    metadata: Settings | None = None
    locked: bool = False


class CallbackResource(Resource):
    """One item of an agent's callback lists."""

    python_code: str
    description: str = ""
    disabled: bool = False
    proactive_execution_enabled: bool = False


class AgentToolset(Resource):
    """An agent's use of a toolset: its display name and the operations (``toolIds``) it may call."""

    toolset: str
    tool_ids: list[str] = Field(default_factory=list)


class AgentResource(Resource):
    """``agents/<Agent>/<Agent>.json``."""

    display_name: str
    description: str = ""
    instruction: str | None = None
    model_settings: Settings | None = None
    tools: list[str] = Field(default_factory=list)
    toolsets: list[AgentToolset] = Field(default_factory=list)
    child_agents: list[str] = Field(default_factory=list)
    guardrails: list[str] = Field(default_factory=list)
    transfer_rules: list[Settings] = Field(default_factory=list)
    llm_agent: Settings | None = None
    remote_dialogflow_agent: Settings | None = None
    generated_summary: str | None = None
    before_agent_callbacks: list[CallbackResource] = Field(default_factory=list)
    after_agent_callbacks: list[CallbackResource] = Field(default_factory=list)
    before_model_callbacks: list[CallbackResource] = Field(default_factory=list)
    after_model_callbacks: list[CallbackResource] = Field(default_factory=list)
    before_tool_callbacks: list[CallbackResource] = Field(default_factory=list)
    after_tool_callbacks: list[CallbackResource] = Field(default_factory=list)

    def callbacks(self) -> list[tuple[str, CallbackResource]]:
        """Each callback with its kind (``before_model``, ...), kinds in CES order, items in list order."""
        kinds = ("before_agent", "after_agent", "before_model", "after_model", "before_tool", "after_tool")
        return [(kind, item) for kind in kinds for item in getattr(self, f"{kind}_callbacks")]


class PythonFunction(Resource):
    """A Python tool's code: ``name`` is the entry function (empty: the first function defined)."""

    python_code: str
    description: str = ""


class CodeBlock(Resource):
    python_code: str


class ToolFakeConfig(Resource):
    enable_fake_mode: bool = False
    code_block: CodeBlock | None = None


class ToolResource(Resource):
    """``tools/<tool>/<tool>.json``: a Python function tool, or another kind toolpen only lists."""

    display_name: str | None = None
    description: str = ""
    execution_type: ExecutionType | None = None
    timeout: str | None = None
    generated_summary: str | None = None
    python_function: PythonFunction | None = None
    tool_fake_config: ToolFakeConfig | None = None
    client_function: Settings | None = None
    open_api_tool: Settings | None = None
    google_search_tool: Settings | None = None
    connector_tool: Settings | None = None
    data_store_tool: Settings | None = None
    mcp_tool: Settings | None = None
    file_search_tool: Settings | None = None
    system_tool: Settings | None = None
    agent_tool: Settings | None = None
    widget_tool: Settings | None = None


class OpenApiToolsetResource(Resource):
    open_api_schema: str
    api_authentication: Settings | None = None
    tls_config: Settings | None = None
    service_directory_config: Settings | None = None
    ignore_unknown_fields: bool = False
    url: str | None = None


class ToolsetResource(Resource):
    """``toolsets/<ts>/<ts>.json``."""

    display_name: str
    description: str = ""
    execution_type: ExecutionType | None = None
    open_api_toolset: OpenApiToolsetResource | None = None
    mcp_toolset: Settings | None = None
    connector_toolset: Settings | None = None
    tool_fake_config: ToolFakeConfig | None = None
