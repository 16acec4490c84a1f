"""samples/apps/Customer_Service loaded, checked and run as CES would: tools by name, the chosen
agent's callbacks, the tool's fake, state from the declared defaults, environment.json applied;
malformed resources named by file and member; cross-references the whole app shows."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from runtime import Runtime
from runtime.app import App, app_runtime, check_app, load_app
from sandbox.common.errors import InvalidApp
from tests.conftest import SAMPLES

APP = SAMPLES / "apps" / "Customer_Service"
GUARD = "guardrails/Card_Number_Guard/Card_Number_Guard.json"
GUARD_CODE = "guardrails/Card_Number_Guard/code_callback/before_model_callback/python_code.py"
EVALUATION = "evaluations/add_points_golden/add_points_golden.json"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "Customer_Service"
    shutil.copytree(APP, target)
    return target


def edit_json(path: Path, change: dict) -> None:
    data = json.loads(path.read_text())
    data.update(change)
    path.write_text(json.dumps(data))


def test_the_sample_loads_whole() -> None:
    app = load_app(APP)
    assert app.name == "Customer Service" and app.root_agent == "Front Desk"
    assert set(app.agents) == {"Front Desk", "Loyalty Desk"}
    assert set(app.tools) == {
        "get_customer",
        "get_last_user_utterance",
        "update_customer_loyalty_points",
        "summarize_cart",
    }
    assert app.tools["get_customer"].fake_enabled and app.tools["get_customer"].fake_source
    assert app.toolsets["crm_service"].document["servers"] == [{"url": "http://127.0.0.1:8765"}]
    assert app.initial_state()["customer_profile"] == {
        "email": "ana@example.com",
        "loyalty_points": 100,
        "plan": "Gold",
    }
    assert [c.kind for c in app.agent("Loyalty Desk").callbacks] == ["before_tool", "after_tool"]
    guard = app.guardrails["Card Number Guard"]
    assert guard.enabled and [c.kind for c in guard.callbacks] == ["before_model"]
    assert guard.callbacks[0].code_path == GUARD_CODE
    assert app.guardrails["Safety Guardrail"].resource.model_safety is not None
    golden = app.evaluations["add_points_golden"].resource.golden
    assert golden is not None and golden.turns[0].steps[0].user_input == {
        "text": "Hi! I'm customer 123. Please add 50 loyalty points."
    }


def test_the_sample_checks_clean() -> None:
    assert check_app(load_app(APP)) == []


def test_an_operation_called_by_its_operation_id_as_written_checks_clean(copy: Path) -> None:
    cart = copy / "tools/summarize_cart/python_function/python_code.py"
    cart.write_text(
        cart.read_text().replace("crm_service_get_cart_information", "crm_service_getCartInformation")
    )
    assert check_app(load_app(copy)) == []


def test_cross_references_are_reported_where_they_are(copy: Path) -> None:
    front = copy / "agents/Front_Desk/Front_Desk.json"
    edit_json(front, {"tools": ["get_customer", "lookup_order"], "childAgents": ["Billing Desk"]})
    loyalty = copy / "agents/Loyalty_Desk/Loyalty_Desk.json"
    edit_json(loyalty, {"toolsets": [{"toolset": "crm_service", "toolIds": ["getCart"]}, {"toolset": "erp"}]})
    cart = copy / "tools/summarize_cart/python_function/python_code.py"
    cart.write_text(cart.read_text().replace("crm_service_get_cart_information", "crm_get_cart"))
    customer = copy / "tools/get_customer/python_function/python_code.py"
    customer.write_text(customer.read_text().replace('"customers"', '"known_customers"'))
    reserved = copy / "tools/end_session"
    (reserved / "python_function").mkdir(parents=True)
    (reserved / "python_function/python_code.py").write_text(
        'def end_session() -> str:\n    """End."""\n    return "bye"\n'
    )
    (reserved / "end_session.json").write_text(
        json.dumps(
            {
                "displayName": "end_session",
                "pythonFunction": {
                    "name": "end_session",
                    "pythonCode": "tools/end_session/python_function/python_code.py",
                },
            }
        )
    )
    found = {
        (f.path, f.diagnostic.level, f.diagnostic.message, f.diagnostic.line)
        for f in check_app(load_app(copy))
    }
    front_path, loyalty_path = "agents/Front_Desk/Front_Desk.json", "agents/Loyalty_Desk/Loyalty_Desk.json"
    expected = {
        (
            front_path,
            "error",
            "tools: no tool named 'lookup_order' in the app (CES expects the displayName of a tool in tools/, or a system tool)",
            1,
        ),
        (
            front_path,
            "error",
            "childAgents: no agent named 'Billing Desk' in the app (CES expects the displayName of an agent in agents/)",
            1,
        ),
        (loyalty_path, "error", "toolsets: toolset 'crm_service' has no operation 'getCart'", 1),
        (
            loyalty_path,
            "error",
            "toolsets: no toolset named 'erp' in the app (CES expects toolsets/erp/erp.json|yaml)",
            1,
        ),
        (
            "tools/summarize_cart/python_function/python_code.py",
            "error",
            "tools.crm_get_cart: no tool of the app is called 'crm_get_cart'",
            7,
        ),
        (
            "tools/get_customer/python_function/python_code.py",
            "warning",
            "state key 'known_customers' is read but not declared in variableDeclarations",
            10,
        ),
        ("tools/end_session/end_session.json", "error", "'end_session' is a reserved tool name", 1),
    }
    assert expected <= found, found - expected


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tools": "get_customer"}, r"Front_Desk.json: tools: Input should be a valid list"),
        (
            {"beforeAgentCallbacks": [{"pythonCode": "agents/Front_Desk/gone.py"}]},
            r"Front_Desk.json: beforeAgentCallbacks\[0\].pythonCode names 'agents/Front_Desk/gone.py', which is not in the export",
        ),
        ({"displayName": None}, r"Front_Desk.json: displayName: Input should be a valid string"),
    ],
)
def test_a_malformed_agent_names_its_file_and_member(copy: Path, change: dict, message: str) -> None:
    edit_json(copy / "agents/Front_Desk/Front_Desk.json", change)
    with pytest.raises(InvalidApp, match=message):
        load_app(copy)


@pytest.mark.parametrize(
    ("path", "change", "message"),
    [
        (
            GUARD,
            {"enabled": "sometimes"},
            r"Card_Number_Guard.json: enabled: Input should be a valid boolean",
        ),
        (
            GUARD,
            {"llmPolicy": {"prompt": "x"}},
            r"Card_Number_Guard.json: \(file\): .*one kind.*codeCallback",
        ),
        (
            GUARD,
            {"codeCallback": {"beforeModelCallback": {"pythonCode": "guardrails/gone.py"}}},
            r"Card_Number_Guard.json: codeCallback.beforeModelCallback.pythonCode names 'guardrails/gone.py'",
        ),
        (
            EVALUATION,
            {"scenario": {"task": "buy"}},
            r"add_points_golden.json: \(file\): .*a golden or a scenario, not both",
        ),
        (
            EVALUATION,
            {"displayName": 7},
            r"add_points_golden.json: displayName: Input should be a valid string",
        ),
        (
            "app.json",
            {"modelSettings": {"temperature": "hot"}},
            r"app.json: modelSettings.temperature: .*\(CES expects a number\)",
        ),
        (
            "app.json",
            {"errorHandlingSettings": {"errorHandlingStrategy": "RETRY"}},
            r"app.json: errorHandlingSettings.errorHandlingStrategy: Input should be .*'FALLBACK_RESPONSE'",
        ),
    ],
)
def test_a_malformed_guardrail_or_evaluation_names_its_file_and_member(
    copy: Path, path: str, change: dict, message: str
) -> None:
    edit_json(copy / path, change)
    with pytest.raises(InvalidApp, match=message):
        load_app(copy)


@pytest.mark.parametrize(
    ("path", "change", "member", "message"),
    [
        (
            "agents/Front_Desk/Front_Desk.json",
            {"beforeModelCallback": []},
            "beforeModelCallback",
            "not a field of CES's Agent (CES's import ignores it; kept as it is, `toolpen app pack` "
            "writes the file back byte for byte); did you mean 'beforeModelCallbacks'?",
        ),
        ("app.json", {"tools": ["get_customer"]}, "tools", "not a field of CES's App"),
        ("app.json", {"_comment_tools": "a note"}, "_comment_tools", "a comment, not a field of CES's App"),
        (GUARD, {"action": {"respondLater": {}}}, "action.respondLater", "CES's TriggerAction"),
        (
            GUARD,
            {"codeCallback": {"beforeToolCallback": {"pythonCode": "x"}}},
            "codeCallback.beforeToolCallback",
            "CES's Guardrail.CodeCallback",
        ),
        (
            EVALUATION,
            {"golden": {"turns": [{"steps": [{"userInputs": {"text": "hi"}}]}]}},
            "golden.turns[0].steps[0].userInputs",
            "did you mean 'userInput'?",
        ),
        (
            "app.json",
            {"languageSettings": {"defaultLanguageCode": "en", "suportedLanguageCodes": ["pt"]}},
            "languageSettings.suportedLanguageCodes",
            "CES's LanguageSettings (CES's import ignores it; kept as it is, `toolpen app pack` writes the "
            "file back byte for byte); did you mean 'supportedLanguageCodes'?",
        ),
        (
            "app.json",
            {"loggingSettings": {"conversationLoggingSettings": {"disableLogging": True}}},
            "loggingSettings.conversationLoggingSettings.disableLogging",
            "CES's ConversationLoggingSettings",
        ),
    ],
)
def test_a_member_ces_lacks_is_a_warning_naming_file_and_member(
    copy: Path, path: str, change: dict, member: str, message: str
) -> None:
    edit_json(copy / path, change)
    app = load_app(copy)
    [note] = [note for note in app.notes if note.path == path]
    assert note.message.startswith(f"{member}: ") and message in note.message
    findings = [(f.path, f.diagnostic.level, f.diagnostic.message) for f in check_app(app)]
    assert (path, "warning", note.message) in findings


def test_the_api_fields_toolpen_does_not_act_on_load_without_a_word(copy: Path) -> None:
    edit_json(
        copy / "app.json",
        {
            "errorHandlingSettings": {"errorHandlingStrategy": "FALLBACK_RESPONSE"},
            "vpcScSettings": {},
            "deploymentCount": 2,
            "validationErrors": [],
            "evaluationPersonas": [{"name": "p"}],
            "evaluationSettings": {},
        },
    )
    edit_json(copy / "agents/Front_Desk/Front_Desk.json", {"validationErrors": ["x"]})
    tool = copy / "tools/get_customer/get_customer.json"
    data = json.loads(tool.read_text())
    data["pythonFunction"]["serviceDirectoryConfig"] = {"service": "s"}
    tool.write_text(json.dumps(data))
    assert load_app(copy).notes == []


def test_guardrail_code_and_references_are_checked(copy: Path) -> None:
    code = copy / GUARD_CODE
    code.write_text(
        code.read_text().replace('{"decision": "OK", "reason": "no card number"}', '{"ok": True}')
    )
    edit_json(copy / "app.json", {"guardrails": ["Card Number Guard", "PII Guard"]})
    edit_json(copy / "agents/Front_Desk/Front_Desk.json", {"guardrails": ["Tone Guard"]})
    found = {
        (f.path, f.diagnostic.level, f.diagnostic.message, f.diagnostic.line)
        for f in check_app(load_app(copy))
    }
    assert found == {
        (
            GUARD_CODE,
            "error",
            'a guardrail callback answers {"decision": "OK" | "TRIGGER", "reason": ...}',
            14,
        ),
        (
            "app.json",
            "error",
            "guardrails: no guardrail named 'PII Guard' in the app (CES expects the displayName of one in guardrails/)",
            1,
        ),
        (
            "agents/Front_Desk/Front_Desk.json",
            "error",
            "guardrails: no guardrail named 'Tone Guard' in the app (CES expects the displayName of one in guardrails/)",
            1,
        ),
    }


def test_missing_and_broken_files_are_named(copy: Path) -> None:
    (copy / "tools/summarize_cart/summarize_cart.json").unlink()
    with pytest.raises(
        InvalidApp, match=r"tools/summarize_cart/: no summarize_cart.json or summarize_cart.yaml"
    ):
        load_app(copy)
    shutil.rmtree(copy / "tools/summarize_cart")
    (copy / "tools/get_customer/python_function/python_code.py").unlink()
    missing = "get_customer.json: pythonFunction.pythonCode names 'tools/get_customer/python_function/python_code.py'"
    with pytest.raises(InvalidApp, match=missing + ", which is not in the export"):
        load_app(copy)
    shutil.rmtree(copy / "tools/get_customer")
    (copy / "environment.json").write_text("{}")
    [note] = load_app(copy).notes
    assert note.path == "toolsets/crm_service/open_api_toolset/open_api_schema.yaml"
    assert note.message.startswith(
        "the schema holds $env_var but environment.json gives no toolsets.crm_service.openApiToolset.url"
    )
    (copy / "environment.json").write_text("{not json")
    with pytest.raises(InvalidApp, match="environment.json: not valid JSON"):
        load_app(copy)
    (copy / "app.json").unlink()
    with pytest.raises(InvalidApp, match="no app.json or app.yaml"):
        load_app(copy)


def test_yaml_resources_read_like_json(copy: Path) -> None:
    for path in [copy / "app.json", copy / "agents/Front_Desk/Front_Desk.json"]:
        path.with_suffix(".yaml").write_text(yaml.safe_dump(json.loads(path.read_text())))
        path.unlink()
    app = load_app(copy)
    assert (
        app.resource_path == "app.yaml" and app.agent().resource_path == "agents/Front_Desk/Front_Desk.yaml"
    )
    assert app.initial_state() == load_app(APP).initial_state()
    (copy / "app.yaml").write_text("displayName: [unclosed")
    with pytest.raises(InvalidApp, match="app.yaml: not valid YAML at line 1, column 23: .*") as caught:
        load_app(copy)
    assert caught.value.message.endswith("(CES expects the App resource as one YAML object)")
    (copy / "app.yaml").unlink()
    (copy / "app.json").write_text('{"displayName": "x",\n  "rootAgent": }')
    with pytest.raises(
        InvalidApp, match=r"app.json: not valid JSON at line 2, column 16: Expecting value \(CES"
    ):
        load_app(copy)


@pytest.fixture
def loyalty() -> Iterator[tuple[App, Runtime]]:
    app = load_app(APP)
    with app_runtime(app, agent="Loyalty Desk", fakes=True) as rt:
        rt.store.get_or_create_session(rt.app_name, rt.user_id, "s", app.initial_state())
        yield app, rt


def test_points_start_from_the_declared_default_and_the_email_stays_hidden(
    loyalty: tuple[App, Runtime],
) -> None:
    _, rt = loyalty
    result = rt.call("update_customer_loyalty_points", {"points_to_add": 50}, session_id="s")
    assert result.output == {"email": "[email]", "loyalty_points": 150, "plan": "Gold"}
    assert rt.store.require_session("s").state["customer_profile"]["email"] == "ana@example.com"


def test_the_loyalty_desks_guard_refuses_and_the_fake_answers_test_customers(
    loyalty: tuple[App, Runtime],
) -> None:
    _, rt = loyalty
    refused = rt.call("update_customer_loyalty_points", {"points_to_add": 900}, session_id="s")
    assert refused.output == {"error": "points_to_add must be between 1 and 500; ask a manager for more."}
    faked = rt.call("get_customer", {"customer_id": "test-9"}, session_id="s")
    assert faked.faked and faked.output["name"] == "Test Customer"
    real = rt.call("get_customer", {"customer_id": "123"}, session_id="s")
    assert not real.faked and real.output["name"] == "Ana Souza"


def test_the_root_agents_callbacks_by_default() -> None:
    app = load_app(APP)
    with app_runtime(app) as rt:
        assert rt.call("get_customer", {"customer_id": "test-1"}).output == {
            "error": "no customer with ID test-1"
        }
        assert (
            rt.call("get_customer", {"customer_id": "123"}).output["name"] == "Ana Souza"
        )  # declared default
        request = {"contents": [{"role": "user", "parts": [{"text": "Quantos pontos eu tenho?"}]}]}
        handover = rt.run_callbacks("before_model", llm_request=request).output
        assert handover["content"]["parts"][0]["function_call"]["args"] == {"agent_name": "Loyalty Desk"}
        assert "before_tool" not in rt.hooks and len(rt.hooks["before_agent"]) == 1


def test_the_card_number_guardrail_triggers_before_the_agents_own_callbacks(copy: Path) -> None:
    def before_model(rt: Runtime, text: str) -> object:
        request = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        return rt.run_callbacks("before_model", llm_request=request).output

    with app_runtime(load_app(APP)) as rt:
        assert before_model(rt, "my card is 4111 1111 1111 1111, add points") == {
            "decision": "TRIGGER",
            "reason": "the message holds a card number",
        }
        handover = before_model(rt, "Quantos pontos eu tenho?")  # OK: the front desk's callback runs
        assert handover["content"]["parts"][0]["function_call"]["args"] == {"agent_name": "Loyalty Desk"}
    edit_json(copy / GUARD, {"enabled": False})
    with app_runtime(load_app(copy)) as rt:
        assert before_model(rt, "my card is 4111 1111 1111 1111") is None


def test_a_tool_is_checked_at_its_named_entry_not_its_first_helper(copy: Path) -> None:
    code = copy / "tools/get_customer/python_function/python_code.py"
    code.write_text("def _Normalized(value):\n    return value.strip()\n\n\n" + code.read_text())
    assert [f.format() for f in check_app(load_app(copy)) if f.diagnostic.level == "error"] == []
    edit_json(
        copy / "tools/get_customer/get_customer.json",
        {"pythonFunction": {"pythonCode": str(code.relative_to(copy))}},
    )
    warnings = [f.format() for f in check_app(load_app(copy)) if f.diagnostic.level == "warning"]
    assert any(
        "tool name '_Normalized' is not snake_case" in warning for warning in warnings
    )  # no name: the first


def test_a_golden_naming_what_the_app_lacks_is_a_warning(copy: Path) -> None:
    steps = [
        {"userInput": {"text": "hi"}},
        {"expectation": {"agentTransfer": {"targetAgent": "Billing Desk"}}},
        {"expectation": {"toolCall": {"tool": "refund_order", "args": {}}}},
        {"expectation": {"toolCall": {"toolsetTool": {"toolset": "crm_service", "toolId": "getCart"}}}},
        {"expectation": {"toolResponse": {"tool": "update_customer_loyalty_points", "response": {}}}},
        {"expectation": {"toolCall": {"tool": "end_session", "args": {}}}},
    ]
    edit_json(copy / EVALUATION, {"golden": {"turns": [{"steps": steps}]}})
    found = {(f.path, f.diagnostic.level, f.diagnostic.message) for f in check_app(load_app(copy))}
    assert found == {
        (EVALUATION, "warning", "agentTransfer: no agent named 'Billing Desk'"),
        (EVALUATION, "warning", "no tool named 'refund_order' in the app"),
        (EVALUATION, "warning", "toolsetTool: toolset 'crm_service' has no operation 'getCart'"),
    }


def test_a_golden_replays_its_tool_steps_and_skips_the_models(copy: Path) -> None:
    from runtime.app._golden import replay_golden

    app = load_app(APP)
    with app_runtime(app, agent="Loyalty Desk") as rt:
        checks = [(c.what, c.status) for c in replay_golden(rt, app.evaluations["add_points_golden"], "g")]
    assert checks == [
        ("agentTransfer", "skipped"),
        ("toolCall update_customer_loyalty_points", "passed"),
        ("toolResponse update_customer_loyalty_points", "passed"),
        ("updatedVariables", "passed"),
        ("agentResponse", "skipped"),
    ]
    golden = json.loads((copy / EVALUATION).read_text())
    steps = golden["golden"]["turns"][0]["steps"]
    steps[2]["expectation"]["toolCall"]["args"] = {"points_to_add": 900}  # the guard refuses it
    edit_json(copy / EVALUATION, golden)
    edited = load_app(copy)
    with app_runtime(edited, agent="Loyalty Desk") as rt:
        failed = {c.what: c.detail for c in replay_golden(rt, edited.evaluations["add_points_golden"], "g")}
    assert failed["toolResponse update_customer_loyalty_points"] == (
        "loyalty_points: expected 150, got None; email: expected '[email]', got None"
    )
    assert failed["updatedVariables"].startswith("customer_profile: expected {")


def test_a_golden_turn_runs_the_agents_callbacks_and_reads_state_as_ces_goldens_expect(copy: Path) -> None:
    """Each golden turn runs the agent's before_agent callbacks first (Front Desk's greets and sets
    ``greeted``); ``updatedVariables`` before any call reads the declared defaults; an object
    matches when its given members do (bella_notte's goldens name a few members of a bigger
    state); a ``toolCall`` without ``args`` of a tool that needs some is the model's to choose."""
    from runtime.app._golden import replay_golden

    golden = json.loads((copy / EVALUATION).read_text())
    golden["golden"]["turns"].insert(
        0,
        {
            "steps": [
                {"userInput": {"text": "Hi"}},
                {
                    "expectation": {
                        "updatedVariables": {"greeted": "true", "customer_profile": {"plan": "Gold"}}
                    }
                },
                {"expectation": {"toolCall": {"tool": "update_customer_loyalty_points"}}},
                {"expectation": {"updatedVariables": {"customer_profile": {"plan": "Standard"}}}},
            ]
        },
    )
    edit_json(copy / EVALUATION, golden)
    edited = load_app(copy)
    with app_runtime(edited) as rt:
        checks = [
            (c.turn, c.what, c.status)
            for c in replay_golden(rt, edited.evaluations["add_points_golden"], "g")
        ]
    assert checks[:3] == [
        (1, "updatedVariables", "passed"),
        (1, "toolCall update_customer_loyalty_points", "skipped"),
        (1, "updatedVariables", "failed"),
    ]


def test_a_resource_given_as_a_terraform_template_is_skipped_with_a_note(copy: Path) -> None:
    folder = copy / "toolsets/crm_service"
    (folder / "crm_service.yaml.tftpl").write_text(
        "displayName: crm_service\nmcpToolset:\n  serverAddress: ${url}\n"
    )
    (folder / "crm_service.json").unlink()
    app = load_app(copy)
    assert "crm_service" not in app.toolsets
    assert app.templates == {"toolsets/crm_service": "toolsets/crm_service/crm_service.yaml.tftpl"}
    found = {(f.path, f.diagnostic.level, f.diagnostic.message) for f in check_app(app)}
    [template] = [f for f in found if f[0].endswith(".tftpl")]
    assert template[1] == "warning" and "variables: url" in template[2] and "templatefile()" in template[2]
    assert (
        "agents/Loyalty_Desk/Loyalty_Desk.json",
        "warning",
        "toolsets: toolset 'crm_service' is only the Terraform template "
        "toolsets/crm_service/crm_service.yaml.tftpl; render it to check it",
    ) in found


def test_a_tool_named_in_camel_case_runs_with_a_warning(copy: Path) -> None:
    code = copy / "tools/get_customer/python_function/python_code.py"
    code.write_text(code.read_text().replace("def get_customer(", "def intent_mapping_getCustomer("))
    edit_json(copy / "tools/get_customer/get_customer.json", {"displayName": "intent_mapping_getCustomer"})
    data = json.loads((copy / "tools/get_customer/get_customer.json").read_text())
    data["pythonFunction"]["name"] = "intent_mapping_getCustomer"
    (copy / "tools/get_customer/get_customer.json").write_text(json.dumps(data))
    app = load_app(copy)
    warnings = [f.diagnostic.message for f in check_app(app) if f.diagnostic.code == "name"]
    assert len(warnings) == 1 and "snake case" in warnings[0]
    with app_runtime(app) as rt:
        result = rt.call("intent_mapping_getCustomer", {"customer_id": "123"}, session_id="camel")
    assert result.success, result.to_dict()


def test_a_session_of_another_app_names_the_way_out(copy: Path) -> None:
    url = f"sqlite:///{copy.parent / 'sessions.db'}"
    with app_runtime(load_app(copy), store=url) as rt:
        assert rt.call("get_customer", {"customer_id": "123"}, session_id="local").success
    edit_json(copy / "app.json", {"displayName": "Another App"})
    with app_runtime(load_app(copy), store=url) as rt:
        result = rt.call("get_customer", {"customer_id": "123"}, session_id="local")
    assert result.error is not None and result.error.kind == "invalid_arguments"
    assert "--session NAME" in result.error.message and "--store URL" in result.error.message
