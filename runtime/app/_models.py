"""The resource files of an exported app, field by field (CX Agent Studio "Export format reference"
and the API's ``App``, ``Agent``, ``Tool``, ``Toolset``, ``Guardrail``, ``Evaluation`` resources;
members in camelCase; the google-cloud-ces 0.7.2 messages, v1 and v1beta, are the reference for
which fields each message has, ``CES_MESSAGE`` names the message a model follows).

A member the message lacks is kept (``model_extra``, and the file is packed byte for byte) and
``runtime.app._members`` reports it as a warning naming the file and the member: real exports
carry such members (``_comment_*`` notes, ``tools`` in app.json) and CES imports them, while a
typo (``beforeModelCallback``) must not drop a callback silently. The app's and agents' settings
(``languageSettings``, ``timeZoneSettings``, ``modelSettings``, ``loggingSettings``,
``errorHandlingSettings``) are checked member by member too, though toolpen does not act on them;
others (audio, guardrails' bodies, a tool kind toolpen does not run) are typed as objects and kept
as they are. A path-valued member (``pythonCode``, ``instruction``,
``openApiSchema``, ``globalInstruction``) names a file of the export; ``runtime.app._loader``
reads it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

ExecutionType = Literal["EXECUTION_TYPE_UNSPECIFIED", "SYNCHRONOUS", "ASYNCHRONOUS"]
Settings = dict[str, Any]


class Message(BaseModel):
    """camelCase members; one the API's message lacks is kept in ``model_extra`` (a warning, not an error)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True)

    CES_MESSAGE: ClassVar[str]
    """The google-cloud-ces message this model follows (``App``, ``Agent.AgentToolset``, ...)."""


class Resource(Message):
    """A top-level resource: its output-only members (``name``, ``etag``, times) accepted."""

    name: str | None = None
    etag: str | None = None
    create_time: str | None = None
    update_time: str | None = None


class VariableDeclaration(Message):
    """A session variable: the default is ``default``, or ``schema.default`` as real exports write it."""

    CES_MESSAGE = "App.VariableDeclaration"

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    description: str = ""
    schema_: Settings = Field(default_factory=dict, alias="schema")
    default: Any = None

    @property
    def default_value(self) -> Any:
        return self.default if self.default is not None else self.schema_.get("default")


class LanguageSettings(Message):
    """``languageSettings`` of the app."""

    CES_MESSAGE = "LanguageSettings"

    default_language_code: str | None = None
    supported_language_codes: list[str] = Field(default_factory=list)
    enable_multilingual_support: bool | None = None
    fallback_action: str | None = None


class TimeZoneSettings(Message):
    """``timeZoneSettings`` of the app."""

    CES_MESSAGE = "TimeZoneSettings"

    time_zone: str | None = None


class ModelSettings(Message):
    """``modelSettings`` of the app or of an agent."""

    CES_MESSAGE = "ModelSettings"

    model: str | None = None
    temperature: float | None = None


class RedactionConfig(Message):
    CES_MESSAGE = "RedactionConfig"

    enable_redaction: bool | None = None
    inspect_template: str | None = None
    deidentify_template: str | None = None


class AudioRecordingConfig(Message):
    CES_MESSAGE = "AudioRecordingConfig"

    gcs_bucket: str | None = None
    gcs_path_prefix: str | None = None


class BigQueryExportSettings(Message):
    CES_MESSAGE = "BigQueryExportSettings"

    enabled: bool | None = None
    project: str | None = None
    dataset: str | None = None


class CloudLoggingSettings(Message):
    CES_MESSAGE = "CloudLoggingSettings"

    enable_cloud_logging: bool | None = None


class ConversationLoggingSettings(Message):
    CES_MESSAGE = "ConversationLoggingSettings"

    disable_conversation_logging: bool | None = None
    retention_window: str | None = None  # a google.protobuf.Duration in JSON: "86400s"


class MetricAnalysisSettings(Message):
    CES_MESSAGE = "MetricAnalysisSettings"

    llm_metrics_opted_out: bool | None = None


class LoggingSettings(Message):
    """``loggingSettings`` of the app."""

    CES_MESSAGE = "LoggingSettings"

    redaction_config: RedactionConfig | None = None
    audio_recording_config: AudioRecordingConfig | None = None
    unredacted_audio_recording_config: AudioRecordingConfig | None = None
    bigquery_export_settings: BigQueryExportSettings | None = None
    unredacted_bigquery_export_settings: BigQueryExportSettings | None = None
    cloud_logging_settings: CloudLoggingSettings | None = None
    conversation_logging_settings: ConversationLoggingSettings | None = None
    evaluation_audio_recording_config: AudioRecordingConfig | None = None
    metric_analysis_settings: MetricAnalysisSettings | None = None


class FallbackResponseConfig(Message):
    CES_MESSAGE = "ErrorHandlingSettings.FallbackResponseConfig"

    custom_fallback_messages: dict[str, str] = Field(default_factory=dict)
    max_fallback_attempts: int | None = None


class EndSessionConfig(Message):
    CES_MESSAGE = "ErrorHandlingSettings.EndSessionConfig"

    escalate_session: bool | None = None


class ErrorHandlingSettings(Message):
    """``errorHandlingSettings`` of the app: what CES does on a system error (an LLM error, ...)."""

    CES_MESSAGE = "ErrorHandlingSettings"

    error_handling_strategy: (
        Literal["ERROR_HANDLING_STRATEGY_UNSPECIFIED", "NONE", "FALLBACK_RESPONSE", "END_SESSION"] | None
    ) = None
    fallback_response_config: FallbackResponseConfig | None = None
    end_session_config: EndSessionConfig | None = None


class AppResource(Resource):
    """``app.json`` / ``app.yaml``."""

    CES_MESSAGE = "App"

    display_name: str
    description: str = ""
    pinned: bool = False
    root_agent: str | None = None
    audio_processing_config: Settings | None = None
    logging_settings: LoggingSettings | None = None
    guardrails: list[str] = Field(default_factory=list)
    variable_declarations: list[VariableDeclaration] = Field(default_factory=list)
    predefined_variable_declarations: list[Settings] = Field(default_factory=list)
    global_instruction: str | None = None
    language_settings: LanguageSettings | None = None
    time_zone_settings: TimeZoneSettings | None = None
    model_settings: ModelSettings | None = None
    tool_execution_mode: Literal["TOOL_EXECUTION_MODE_UNSPECIFIED", "PARALLEL", "SEQUENTIAL"] | None = None
    evaluation_metrics_thresholds: Settings | None = None
    default_channel_profile: Settings | None = None
    data_store_settings: Settings | None = None
    client_certificate_settings: Settings | None = None
    metadata: Settings | None = None
    locked: bool = False
    error_handling_settings: ErrorHandlingSettings | None = None
    vpc_sc_settings: Settings | None = None
    evaluation_personas: list[Settings] = Field(default_factory=list)
    evaluation_settings: Settings | None = None
    deployment_count: int | None = None
    validation_errors: list[str] = Field(default_factory=list)


class CallbackResource(Message):
    """One item of an agent's callback lists."""

    CES_MESSAGE = "Callback"

    python_code: str
    description: str = ""
    disabled: bool = False
    proactive_execution_enabled: bool = False


class AgentToolset(Message):
    """An agent's use of a toolset: its display name and the operations (``toolIds``) it may call."""

    CES_MESSAGE = "Agent.AgentToolset"

    toolset: str
    tool_ids: list[str] = Field(default_factory=list)


class AgentResource(Resource):
    """``agents/<Agent>/<Agent>.json``."""

    CES_MESSAGE = "Agent"

    display_name: str
    description: str = ""
    instruction: str | None = None
    model_settings: ModelSettings | None = None
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
    validation_errors: list[str] = Field(default_factory=list)

    def callbacks(self) -> list[tuple[str, CallbackResource]]:
        """Each callback with its kind (``before_model``, ...), kinds in CES order, items in list order."""
        kinds = ("before_agent", "after_agent", "before_model", "after_model", "before_tool", "after_tool")
        return [(kind, item) for kind in kinds for item in getattr(self, f"{kind}_callbacks")]


class PythonFunction(Message):
    """A Python tool's code: ``name`` is the entry function (empty: the first function defined)."""

    CES_MESSAGE = "PythonFunction"

    name: str | None = None
    python_code: str
    description: str = ""
    """Output only: what CES shows the model (the entry function's docstring when it has one)."""
    service_directory_config: Settings | None = None


class CodeBlock(Message):
    CES_MESSAGE = "CodeBlock"

    python_code: str


class ToolFakeConfig(Message):
    CES_MESSAGE = "ToolFakeConfig"

    enable_fake_mode: bool = False
    code_block: CodeBlock | None = None


class ToolResource(Resource):
    """``tools/<tool>/<tool>.json``: a Python function tool, or another kind toolpen only lists."""

    CES_MESSAGE = "Tool"

    display_name: str | None = None
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
    remote_agent_tool: Settings | None = None


class OpenApiToolsetResource(Message):
    CES_MESSAGE = "OpenApiToolset"

    open_api_schema: str
    api_authentication: Settings | None = None
    tls_config: Settings | None = None
    service_directory_config: Settings | None = None
    ignore_unknown_fields: bool = False
    url: str | None = None


class ToolsetResource(Resource):
    """``toolsets/<ts>/<ts>.json``."""

    CES_MESSAGE = "Toolset"

    display_name: str
    description: str = ""
    execution_type: ExecutionType | None = None
    timeout: str | None = None
    open_api_toolset: OpenApiToolsetResource | None = None
    mcp_toolset: Settings | None = None
    connector_toolset: Settings | None = None
    tool_fake_config: ToolFakeConfig | None = None


class GuardrailCodeCallback(Message):
    """A code guardrail's callbacks; each function answers ``{"decision": "OK" | "TRIGGER", "reason"}``."""

    CES_MESSAGE = "Guardrail.CodeCallback"

    before_agent_callback: CallbackResource | None = None
    after_agent_callback: CallbackResource | None = None
    before_model_callback: CallbackResource | None = None
    after_model_callback: CallbackResource | None = None

    def callbacks(self) -> list[tuple[str, CallbackResource]]:
        """Each callback set, with its kind (``before_agent``, ...), in CES order."""
        kinds = ("before_agent", "after_agent", "before_model", "after_model")
        return [(kind, item) for kind in kinds if (item := getattr(self, f"{kind}_callback")) is not None]


class TriggerAction(Message):
    """What a triggered guardrail does (one of the three)."""

    CES_MESSAGE = "TriggerAction"

    respond_immediately: Settings | None = None
    transfer_agent: Settings | None = None
    generative_answer: Settings | None = None


GUARDRAIL_KINDS = ("content_filter", "llm_prompt_security", "llm_policy", "model_safety", "code_callback")


class GuardrailResource(Resource):
    """``guardrails/<G>/<G>.json``: one kind of check (``GUARDRAIL_KINDS``), and the action when it triggers."""

    CES_MESSAGE = "Guardrail"

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


class GoldenExpectation(Message):
    """A check on a replayed turn (``Evaluation.GoldenExpectation``); its conditions kept as objects."""

    CES_MESSAGE = "Evaluation.GoldenExpectation"

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


class GoldenStep(Message):
    """One step of a golden turn: the user's input, an agent transfer, or an expectation."""

    CES_MESSAGE = "Evaluation.Step"

    user_input: Settings | None = None
    agent_transfer: Settings | None = None
    expectation: GoldenExpectation | None = None


class GoldenTurn(Message):
    CES_MESSAGE = "Evaluation.GoldenTurn"

    steps: list[GoldenStep] = Field(default_factory=list)
    root_span: Settings | None = None
    turn_level_metrics_thresholds_override: Settings | None = None
    hallucination_metric_behavior_override: str | None = None


class Golden(Message):
    """A golden conversation to replay, turn by turn."""

    CES_MESSAGE = "Evaluation.Golden"

    turns: list[GoldenTurn] = Field(default_factory=list)
    evaluation_expectations: list[str] = Field(default_factory=list)


class Scenario(Message):
    """A simulated user's task, scored against rubrics and expectations."""

    CES_MESSAGE = "Evaluation.Scenario"

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

    CES_MESSAGE = "Evaluation"

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
