"""bash runs in the client's terminal when it offers terminal/*, else as the agent's own process."""

from __future__ import annotations

import shutil

import pytest

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_bash_runs_in_the_client_terminal(acp: Acp) -> None:
    acp.model.script(
        Turn.tool_call("bash", {"command": "echo from-terminal; exit 3", "description": "Echo"}),
        Turn.text("Done."),
    )
    run = await acp.run("turn", PROMPT="run it", TERMINALS="1")
    assert run.failure is None, run.failure
    created = [e["params"] for e in run.log if e["kind"] == "terminal-create"]
    assert len(created) == 1
    # Confined like the agent's own bash: bubblewrap runs the shell (where it works here).
    argv = [created[0]["command"], *created[0]["args"]]
    assert argv[-3:] == ["/bin/sh", "-c", "echo from-terminal; exit 3"]
    assert created[0]["cwd"] == str(acp.project)
    if shutil.which("bwrap"):
        assert argv[0].endswith("bwrap") and "--unshare-net" in argv
    shown = [
        c for u in run.updates("tool_call_update") for c in u.get("content") or [] if c["type"] == "terminal"
    ]
    assert shown and shown[0]["terminalId"] == "term-1"
    assert "terminal-release" in run.kinds
    # The model read the terminal's output and exit code.
    tool_result = str(acp.model.requests[-1].messages[-1]["content"])
    assert "from-terminal" in tool_result and "Exit code: 3" in tool_result


async def test_bash_streams_its_output_without_client_terminals(acp: Acp) -> None:
    acp.model.script(
        Turn.tool_call("bash", {"command": "echo streamed-here", "description": "Echo"}),
        Turn.text("Done."),
    )
    run = await acp.run("turn", PROMPT="run it")
    assert run.failure is None, run.failure
    assert "terminal-create" not in run.kinds
    texts = [c["content"]["text"] for u in run.updates("tool_call_update") for c in u.get("content") or []]
    assert any("streamed-here" in t for t in texts)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
async def test_a_client_terminal_runs_the_command_in_the_sandbox(acp: Acp) -> None:
    outside = acp.project.parent / "outside-of-the-project"
    acp.model.script(
        Turn.tool_call("bash", {"command": f"echo x > {outside}", "description": "Write"}),
        Turn.text("Done."),
    )
    run = await acp.run("turn", PROMPT="run it", TERMINALS="1")
    assert run.failure is None, run.failure
    assert not outside.exists()
    tool_result = str(acp.model.requests[-1].messages[-1]["content"])
    assert f"The sandbox (workspace-write) blocked writing to {outside}" in tool_result


async def test_cancelling_the_prompt_kills_the_command_in_the_client_terminal(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("bash", {"command": "sleep 8; echo late", "description": "Wait"}))
    run = await acp.run("cancel", PROMPT="wait", TERMINALS="1", CANCEL_AFTER="terminal-create")
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "cancelled"}
    assert run.results["cancelToStopMs"] < 6_000  # killed, not waited for (8 s)
    assert run.kinds.index("terminal-release") > run.kinds.index("cancel-sent")
    assert len(acp.model.requests) == 1  # the model was not asked again
