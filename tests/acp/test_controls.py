"""Autonomy and effort over ACP, with the official SDK client: config options of category ``mode``
and ``thought_level``."""

from __future__ import annotations

import json
from typing import Any

from demo.fake_script import Turn
from tests.acp.conftest import Acp, Run


def _options(response: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in response["configOptions"]}


def _edit(acp: Acp) -> Turn:
    path = acp.project / "hello.py"
    return Turn.tool_call("edit", {"filePath": str(path), "oldString": "hello", "newString": "bye"})


async def _run(acp: Acp, config: list[list[str]], prompts: list[str]) -> Run:
    run = await acp.run("options", CONFIG=json.dumps(config), PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    return run


async def test_auto_edits_without_asking_the_client(acp: Acp) -> None:
    acp.model.script(_edit(acp), Turn.text("Changed."))
    run = await _run(acp, [["autonomy", "auto"]], ["change it"])
    autonomy = _options(run.results["session"])["autonomy"]
    assert autonomy["category"] == "mode" and autonomy["currentValue"] == "ask"
    assert [o["value"] for o in autonomy["options"]] == ["ask", "auto", "plan"]
    assert _options(run.results["set"][0])["autonomy"]["currentValue"] == "auto"
    assert "effort" not in _options(run.results["session"])  # fake/m has no thinking control
    assert "permission" not in run.kinds
    assert (acp.project / "hello.py").read_text() == "print('bye')\n"


async def test_ask_asks_the_client_and_a_bad_value_is_refused(acp: Acp) -> None:
    acp.model.script(_edit(acp), Turn.text("Changed."))
    run = await _run(acp, [["autonomy", "yolo"]], ["change it"])
    error = run.results["set"][0]["error"]
    assert error["code"] == -32602 and "ask, auto, plan" in error["message"]
    assert run.kinds.count("permission") == 1
    assert (acp.project / "hello.py").read_text() == "print('bye')\n"


async def test_plan_refuses_an_edit_naming_plan_mode_and_the_edits_option(acp: Acp) -> None:
    acp.model.script(_edit(acp), Turn.text("I may not."))
    run = await _run(acp, [["autonomy", "plan"]], ["change it"])
    assert "permission" not in run.kinds
    assert (acp.project / "hello.py").read_text() == "print('hello')\n"
    told = str(acp.model.requests[1].messages[-1]["content"])
    assert "read-only mode is on" in told and '"Edits" option' in told and "/mode ask" in told
    assert "denied by the configuration" not in told
    (failed,) = [u for u in run.updates("tool_call_update") if u.get("status") == "failed"]
    assert "read-only mode is on" in json.dumps(failed["content"])


async def test_effort_is_a_thought_level_option(acp: Acp) -> None:
    config = json.loads((acp.project / "agentls.json").read_text())
    config["provider"]["fake"]["models"]["m"]["options"] = {"agentls_thinking": "openai"}
    (acp.project / "agentls.json").write_text(json.dumps(config))
    acp.model.script(Turn.text("Thought hard."))
    run = await _run(acp, [["effort", "max"], ["effort", "high"]], ["think"])
    effort = _options(run.results["session"])["effort"]
    assert effort["category"] == "thought_level" and effort["currentValue"] == "default"
    assert [o["value"] for o in effort["options"]] == ["default", "low", "medium", "high"]
    bad, good = run.results["set"]
    assert bad["error"]["code"] == -32602
    assert "its levels: low, medium, high" in bad["error"]["message"]
    assert _options(good)["effort"]["currentValue"] == "high"
    assert acp.model.requests[-1].body["reasoning_effort"] == "high"


async def test_review_keep_undo_mode_and_model_commands(acp: Acp) -> None:
    path = acp.project / "hello.py"
    path.write_text("a\nb\nc\nd\ne\n")
    edits = [
        {"filePath": str(path), "oldString": o, "newString": n} for o, n in (("b\n", "B\n"), ("d\n", "D\n"))
    ]
    acp.model.script(Turn.tool_call("edit", edits[0]).tool_call("edit", edits[1]), Turn.text("Changed."))
    prompts = [
        "change it",
        "/changes",
        "/keep {hnk}",
        "/undo all",
        "/changes",
        "/mode plan",
        "/model titles/t",
        "hi",
    ]
    run = await _run(acp, [["autonomy", "auto"]], prompts)
    assert [a.get("stopReason") for a in run.results["answers"]] == ["end_turn"] * len(prompts)
    said = run.text()
    assert "2 agent change(s) to review" in said and "hello.py: line 2 (+1 -1)" in said
    assert "Kept 1 change(s).\n- hello.py: line 2" in said
    assert "Undid 1 change(s).\n- hello.py: line 4" in said
    assert "No agent changes wait for review." in said
    assert path.read_text() == "a\nB\nc\nd\ne\n"
    assert "Mode: plan" in said and "Model: titles/t" in said
    updates = run.updates("config_option_update")
    chosen = {o["id"]: o["currentValue"] for o in updates[-1]["configOptions"]}
    assert chosen["autonomy"] == "plan" and chosen["model"] == "titles/t"
    # The last prompt went to titles/t (its server answers "A title"); the main model saw one turn.
    assert said.endswith("A title") and len(acp.model.requests) == 2
    names = {c["name"] for c in run.updates("available_commands_update")[0]["availableCommands"]}
    assert {
        "review",
        "changes",
        "keep",
        "undo",
        "mode",
        "effort",
        "model",
        "agent",
        "rewind",
        "export",
    } <= names
    assert "new" not in names  # a client action: ACP cannot move the host to another session


async def test_rewind_agent_and_export_commands(acp: Acp) -> None:
    path = acp.project / "hello.py"
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    acp.model.script(Turn.text("One."), Turn.tool_call("edit", edit), Turn.text("Two."))
    prompts = [
        "first question",
        "second question",
        "/rewind",
        "/rewind {msg}",
        "/agent plan",
        "/export notes.md",
    ]
    run = await _run(acp, [["autonomy", "auto"]], prompts)
    assert [a.get("stopReason") for a in run.results["answers"]] == ["end_turn"] * len(prompts)
    said = run.text()
    listing = said[said.index("Messages to go back to") :]
    assert listing.index("second question") < listing.index("first question")  # newest first
    assert "Went back to before that message" in said and "Files restored: hello.py" in said
    assert path.read_text() == "print('hello')\n"
    assert [u["currentModeId"] for u in run.updates("current_mode_update")] == ["plan"]
    exported = (acp.project / "notes.md").read_text()
    assert exported.startswith("# ") and "first question" in exported
