"""Inline code: an export whose ``pythonCode`` members hold the code itself (JSON strings, YAML block
scalars) is unpacked into editable ``.py`` files and packed back into the same inline form, byte
for byte when nothing was edited."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from runtime.app import app_runtime, check_app, load_app, pack, unpack
from runtime.app._inline import find_inline
from sandbox.common.errors import InvalidApp
from tests.conftest import SAMPLES

APP = SAMPLES / "apps" / "Customer_Service"
ROOT = "Customer_Service"
TOOL_JSON = "tools/get_customer/get_customer.json"
TOOL_CODE = "tools/get_customer/python_function/python_code.py"
FAKE_CODE = "tools/get_customer/tool_fake_config/code_block/python_code.py"
GUARD = "agents/Loyalty_Desk/before_tool_callbacks/before_tool_callbacks_01/python_code.py"
GUARDRAIL_CODE = "guardrails/Card_Number_Guard/code_callback/before_model_callback/python_code.py"
LOYALTY_YAML = "agents/Loyalty_Desk/Loyalty_Desk.yaml"


def _block(code: str, indent: str) -> str:
    return "|\n" + "".join(f"{indent}{line}\n" if line else "\n" for line in code.splitlines())


def inline_files() -> dict[str, str]:
    """The sample with every code file folded into its resource: JSON strings, and one agent in
    YAML with block scalars."""
    files = {p.relative_to(APP).as_posix(): p.read_text() for p in sorted(APP.rglob("*")) if p.is_file()}
    for name in [n for n in files if n.endswith(".json") and n.count("/") == 2]:
        for path in [p for p in files if p.endswith(".py") and f'"{p}"' in files[name]]:
            files[name] = files[name].replace(f'"{path}"', json.dumps(files[path]))
    loyalty = "agents/Loyalty_Desk/"
    guard, redact = GUARD, loyalty + "after_tool_callbacks/after_tool_callbacks_01/python_code.py"
    files[LOYALTY_YAML] = (
        "displayName: Loyalty Desk\n"
        f"instruction: {loyalty}instruction.txt\n"
        "tools: [update_customer_loyalty_points, summarize_cart, end_session]\n"
        "toolsets:\n  - toolset: crm_service\n    toolIds: [getCartInformation, addCartItem]\n"
        f"beforeToolCallbacks:\n  - pythonCode: {_block(files[guard], '      ')}"
        "    description: Refuses point changes outside 1..500.\n"
        f"afterToolCallbacks:\n  - pythonCode: {_block(files[redact], '      ')}"
    )
    del files[loyalty + "Loyalty_Desk.json"]
    return {name: text for name, text in files.items() if not name.endswith(".py")}


def inline_export(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in inline_files().items():
            archive.writestr(f"{ROOT}/{name}", text)
    return path


def test_the_inline_export_runs_as_it_is() -> None:
    files = {name: text.encode() for name, text in inline_files().items()}
    assert {item.code_path for item in find_inline(files)} >= {TOOL_CODE, FAKE_CODE, GUARD, GUARDRAIL_CODE}
    assert not any(name.endswith(".py") for name in files)


def test_inline_code_is_unpacked_into_py_files_and_packed_back_byte_for_byte(tmp_path: Path) -> None:
    exported = inline_export(tmp_path / "export.zip")
    folder = tmp_path / "work"
    unpack(exported, folder)
    for code in (TOOL_CODE, FAKE_CODE, GUARD, GUARDRAIL_CODE):
        assert (folder / code).read_text() == (APP / code).read_text()
    assert json.loads((folder / TOOL_JSON).read_text())["pythonFunction"]["pythonCode"] == TOOL_CODE
    app = load_app(folder)
    assert app.tools["get_customer"].code_path == TOOL_CODE
    assert app.agent("Loyalty Desk").callbacks[0].code_path == GUARD
    assert app.guardrails["Card Number Guard"].callbacks[0].code_path == GUARDRAIL_CODE
    assert [f for f in check_app(app) if f.diagnostic.level == "error"] == []
    assert pack(folder) == exported.read_bytes()


def test_an_edit_of_laid_out_code_goes_back_inline(tmp_path: Path) -> None:
    exported = inline_export(tmp_path / "export.zip")
    folder = tmp_path / "work"
    unpack(exported, folder)
    for path, old, new in [
        (TOOL_CODE, "no customer with ID", "unknown customer"),
        (GUARD, "MAX_POINTS = 500", "MAX_POINTS = 40"),
    ]:
        (folder / path).write_text((folder / path).read_text().replace(old, new))
    (tmp_path / "import.zip").write_bytes(pack(folder))

    before = zipfile.ZipFile(exported)
    after = zipfile.ZipFile(io.BytesIO((tmp_path / "import.zip").read_bytes()))
    assert after.namelist() == before.namelist()  # no .py file joined the archive
    tool = json.loads(after.read(f"{ROOT}/{TOOL_JSON}"))
    assert "unknown customer" in tool["pythonFunction"]["pythonCode"]
    assert tool["toolFakeConfig"] == json.loads(before.read(f"{ROOT}/{TOOL_JSON}"))["toolFakeConfig"]
    agent = after.read(f"{ROOT}/{LOYALTY_YAML}").decode()
    old_agent = before.read(f"{ROOT}/{LOYALTY_YAML}").decode()
    assert agent.split("beforeToolCallbacks")[0] == old_agent.split("beforeToolCallbacks")[0]
    assert agent.split("afterToolCallbacks")[1] == old_agent.split("afterToolCallbacks")[1]

    app = load_app(tmp_path / "import.zip")
    with app_runtime(app, agent="Loyalty Desk") as rt:
        refused = rt.call("update_customer_loyalty_points", {"points_to_add": 50})
        assert refused.output == {"error": "points_to_add must be between 1 and 40; ask a manager for more."}
        assert rt.call("get_customer", {"customer_id": "9"}).output == {"error": "unknown customer 9"}

    # unpacked again, the edited archive round-trips too
    unpack(tmp_path / "import.zip", tmp_path / "again")
    assert pack(tmp_path / "again") == (tmp_path / "import.zip").read_bytes()


def test_a_member_pointed_elsewhere_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    unpack(inline_export(tmp_path / "export.zip"), folder)
    (folder / "tools/get_customer/mine.py").write_text((folder / TOOL_CODE).read_text())
    (folder / TOOL_CODE).unlink()
    resource = folder / TOOL_JSON
    resource.write_text(resource.read_text().replace(TOOL_CODE, "tools/get_customer/mine.py"))
    packed = zipfile.ZipFile(io.BytesIO(pack(folder)))
    tool = json.loads(packed.read(f"{ROOT}/{TOOL_JSON}"))
    assert tool["pythonFunction"]["pythonCode"] == "tools/get_customer/mine.py"
    assert f"{ROOT}/tools/get_customer/mine.py" in packed.namelist()


@pytest.mark.parametrize("taken", [True, False])
def test_a_laid_out_file_never_overwrites_one_of_the_export(taken: bool) -> None:
    files = {name: text.encode() for name, text in inline_files().items()}
    if taken:
        files[TOOL_CODE] = b"# a file of the export\n"
    paths = {item.code_path for item in find_inline(files) if item.resource == TOOL_JSON}
    expected = "tools/get_customer/python_function/python_code_2.py" if taken else TOOL_CODE
    assert expected in paths


def test_a_missing_code_file_stays_the_loaders_error_after_unpack(tmp_path: Path) -> None:
    files = inline_files()
    files[TOOL_JSON] = files[TOOL_JSON].replace(
        json.dumps((APP / TOOL_CODE).read_text()), '"tools/get_customer/gone.py"'
    )
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as archive:
        for name, text in files.items():
            archive.writestr(f"{ROOT}/{name}", text)
    unpack(tmp_path / "export.zip", tmp_path / "work")
    assert not (tmp_path / "work/tools/get_customer/python_function").exists()
    with pytest.raises(InvalidApp, match="pythonFunction.pythonCode names 'tools/get_customer/gone.py'"):
        load_app(tmp_path / "work")
