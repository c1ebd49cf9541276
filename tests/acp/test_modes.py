"""Modes are the agents, the model is a config option; the plan comes from the todo list."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_mode_and_model_switching_and_session_delete(acp: Acp) -> None:
    run = await acp.run("modes", MODEL="titles/t")
    assert run.failure is None, run.failure
    session = run.results["session"]
    modes = {m["id"] for m in session["modes"]["availableModes"]}
    assert {"build", "plan"} <= modes and session["modes"]["currentModeId"] == "build"
    options = {o["id"]: o for o in session["configOptions"]}
    assert options["model"]["currentValue"] == "fake/m"
    assert {o["value"] for o in options["model"]["options"]} == {"fake/m", "titles/t"}
    chosen = {o["id"]: o["currentValue"] for o in run.results["setModel"]["configOptions"]}
    assert chosen == {"mode": "plan", "model": "titles/t", "autonomy": "ask"}
    assert run.results["badMode"]["code"] == -32602
    # The prompt went to the chosen model (the title server answers "A title" to everything).
    assert run.text() == "A title"
    assert acp.model.requests == []
    assert run.results["listAfterDelete"]["sessions"] == []
    commands = run.updates("available_commands_update")
    assert commands and "compact" in {c["name"] for c in commands[0]["availableCommands"]}


async def test_todos_become_the_plan(acp: Acp) -> None:
    todos = [
        {"content": "Read the code", "status": "completed", "priority": "high"},
        {"content": "Write the fix", "status": "in_progress", "priority": "medium"},
        {"content": "Drop this", "status": "cancelled", "priority": "low"},
    ]
    acp.model.script(Turn.tool_call("todowrite", {"todos": todos}), Turn.text("Planned."))
    run = await acp.run("turn", PROMPT="plan it")
    assert run.failure is None, run.failure
    plans = run.updates("plan")
    assert plans[-1]["entries"] == [
        {"content": "Read the code", "status": "completed", "priority": "high"},
        {"content": "Write the fix", "status": "in_progress", "priority": "medium"},
    ]
    think = [u for u in run.updates("tool_call") if u["kind"] == "think"]
    assert think, "todowrite is shown as a think call"
