"""The resource files of an exported app, field by field (CX Agent Studio "Export format reference"
and the API's ``App``, ``Agent``, ``Tool``, ``Toolset``, ``Guardrail``, ``Evaluation`` resources;
members in camelCase).

Unknown members are errors: a typo (``beforeModelCallback``) would otherwise drop a callback
silently. Settings toolpen does not act on (audio, logging, language, guardrails' bodies) are
typed as objects and kept as they are. A path-valued member (``pythonCode``, ``instruction``,
``openApiSchema``, ``globalInstruction``) names a file of the export; ``runtime.app._loader``
reads it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
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
    timeout: str | None = None
    open_api_toolset: OpenApiToolsetResource | None = None
    mcp_toolset: Settings | None = None
    connector_toolset: Settings | None = None
    tool_fake_config: ToolFakeConfig | None = None


class GuardrailCodeCallback(Resource):
    """A code guardrail's callbacks; each function answers ``{"decision": "OK" | "TRIGGER", "reason"}``."""

    before_agent_callback: CallbackResource | None = None
    after_agent_callback: CallbackResource | None = None
    before_model_callback: CallbackResource | None = None
    after_model_callback: CallbackResource | None = None

    def callbacks(self) -> list[tuple[str, CallbackResource]]:
        """Each callback set, with its kind (``before_agent``, ...), in CES order."""
        kinds = ("before_agent", "after_agent", "before_model", "after_model")
        return [(kind, item) for kind in kinds if (item := getattr(self, f"{kind}_callback")) is not None]


class TriggerAction(Resource):
    """What a triggered guardrail does (one of the three)."""

    respond_immediately: Settings | None = None
    transfer_agent: Settings | None = None
    generative_answer: Settings | None = None


GUARDRAIL_KINDS = ("content_filter", "llm_prompt_security", "llm_policy", "model_safety", "code_callback")


class GuardrailResource(Resource):
    """``guardrails/<G>/<G>.json``: one kind of check (``GUARDRAIL_KINDS``), and the action when it triggers."""

    display_name: str
    description: str = ""
    enabled: bool = False
    action: TriggerAction | None = None
    content_filter: Settings | None = None
    llm_prompt_security: Settings | None = None
    llm_policy: Settings | None = None
    model_safety: Settings | None = None
    code_callback: GuardrailCodeCallback | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> GuardrailResource:
        kinds = [kind for kind in GUARDRAIL_KINDS if getattr(self, kind) is not None]
        if len(kinds) > 1:
            raise ValueError(f"a guardrail has one kind; this one has {', '.join(map(to_camel, kinds))}")
        return self


class GoldenExpectation(Resource):
    """A check on a replayed turn (``Evaluation.GoldenExpectation``); its conditions kept as objects."""

    tool_call: Settings | None = None
    tool_response: Settings | None = None
    agent_response: Settings | None = None
    agent_transfer: Settings | None = None
    updated_variables: Settings | None = None
    mock_tool_response: Settings | None = None
    no_tool_calls: bool | None = None
    note: str = ""
    skip_evaluation: bool = False
    expectation_level_metrics_thresholds_override: Settings | None = None
    agent_response_semantic_similarity_metrics_config_override: Settings | None = None
    agent_response_hallucination_metrics_config_override: Settings | None = None
    comparison_type: str | None = None


class GoldenStep(Resource):
    """One step of a golden turn: the user's input, an agent transfer, or an expectation."""

    user_input: Settings | None = None
    agent_transfer: Settings | None = None
    expectation: GoldenExpectation | None = None


class GoldenTurn(Resource):
    steps: list[GoldenStep] = Field(default_factory=list)
    root_span: Settings | None = None
    turn_level_metrics_thresholds_override: Settings | None = None
    hallucination_metric_behavior_override: str | None = None


class Golden(Resource):
    """A golden conversation to replay, turn by turn."""

    turns: list[GoldenTurn] = Field(default_factory=list)
    evaluation_expectations: list[str] = Field(default_factory=list)


class Scenario(Resource):
    """A simulated user's task, scored against rubrics and expectations."""

    task: str = ""
    user_facts: list[Settings] = Field(default_factory=list)
    max_turns: int | None = None
    rubrics: list[str] = Field(default_factory=list)
    scenario_expectations: list[Settings] = Field(default_factory=list)
    variable_overrides: Settings | None = None
    task_completion_behavior: str | None = None
    user_goal_behavior: str | None = None
    evaluation_expectations: list[str] = Field(default_factory=list)
    scenario_execution_mode: str | None = None


class EvaluationResource(Resource):
    """``evaluations/<E>/<E>.json`` (the API's ``Evaluation``): a golden conversation or a scenario."""

    display_name: str
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    golden: Golden | None = None
    scenario: Scenario | None = None
    evaluation_datasets: list[str] = Field(default_factory=list)
    created_by: str | None = None
    last_updated_by: str | None = None
    evaluation_runs: list[str] = Field(default_factory=list)
    aggregated_metrics: Settings | None = None
    last_completed_result: Settings | None = None
    invalid: bool = False
    last_ten_results: list[Settings] = Field(default_factory=list)
    evaluation_metrics_threshold_override: Settings | None = None
    evaluation_metrics_config_override: Settings | None = None

    @model_validator(mode="after")
    def _golden_or_scenario(self) -> EvaluationResource:
        if self.golden is not None and self.scenario is not None:
            raise ValueError("an evaluation is a golden or a scenario, not both")
        return self
