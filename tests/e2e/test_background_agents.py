"""Background sub-agents through the real loop, the fake model scripted per session (each sub-agent
asks with its own brief): the parent's turn ends while two run, their results reach it as messages
of their own, and stopping one kills its commands and background shells (checked by process)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from core.events import BackgroundAgentEnded, BackgroundAgentUpdated, SessionIdle
from core.message.models import TextPart, ToolPart
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for
from tests.ticks import until

from .conftest import HarnessFactory, fake_config, text_of
from .test_background_shells import running
from .test_cli import agentls, clean_env


def task(key: str, background: bool = True) -> dict[str, object]:
    return {
        "description": f"job {key}",
        "prompt": f"{key}: do the job",
        "subagent_type": "general",
        "background": background,
    }


def wait_for_file(path: Path) -> str:
    """A command that waits (at most 30 s) for ``path`` to exist, then says so."""
    return (
        f'{sys.executable} -c "import os, time\n'
        "for _ in range(600):\n"
        f"    if os.path.exists('{path}'): break\n"
        "    time.sleep(0.05)\n"
        "print('the gate opened')\""
    )


def sleeper(marker: str) -> str:
    """A command that sleeps with ``marker`` in its own command line (a shell would exec a bare
    ``sleep`` and drop a comment)."""
    return f'{sys.executable} -c "import time; time.sleep(300)" {marker}'


def subagent_results(messages: list) -> list[TextPart]:  # type: ignore[type-arg]
    return [
        p
        for m in messages
        for p in m.parts
        if isinstance(p, TextPart) and ((p.metadata or {}).get("context") or {}).get("kind") == "subagent"
    ]


async def test_the_parent_goes_on_while_two_run_and_their_results_reach_it(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path, tmp_path: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    gate = project / "gate"
    marker = f"bgmark{abs(hash(str(tmp_path))) % 10**8}"
    model.script(
        Turn.tool_call("task", task("JOB-A")).tool_call("task", task("JOB-B")),
        Turn.text("Both jobs run in the background."),
        Turn.text("Noted: B was stopped."),
        Turn.text("Noted: A found the answer."),
    )
    model.script_for(
        "JOB-A",
        Turn.tool_call("bash", {"command": wait_for_file(gate), "description": "wait"}),
        Turn.text("A: the answer is 42."),
    )
    model.script_for(
        "JOB-B",
        Turn.tool_call(
            "bash", {"command": sleeper(f"{marker}-shell"), "background": True, "description": "s"}
        ),
        Turn.tool_call("bash", {"command": sleeper(f"{marker}-fg"), "description": "block"}),
    )
    session = await app.create_session()
    b_blocks = asyncio.create_task(
        wait_for(
            app,
            BackgroundAgentUpdated,
            lambda e: e.agent.description == "job JOB-B" and e.agent.tool == "bash" and e.agent.step == 1,
            timeout=20,
        )
    )
    answer = await asyncio.wait_for(app.prompt(session.id, [TextInput(text="run both jobs")]), 20)
    # The parent's turn is over; both sub-agents still run.
    assert text_of(answer) == "Both jobs run in the background."
    started = [p for m in await app.messages(session.id) for p in m.parts if isinstance(p, ToolPart)]
    assert [p.state.status for p in started] == ["completed", "completed"]
    assert all("Started in the background as task_id" in str(p.state.output) for p in started)  # type: ignore[union-attr]
    roster = {a.description: a for a in await app.background_agents(session.id)}
    assert roster["job JOB-A"].status == "running" and roster["job JOB-B"].status == "running"

    # B blocks on a foreground command with a background shell beside it: stop it from the roster.
    b_id = (await b_blocks).agent.sessionID
    await until(lambda: len(running(marker)) >= 2, "B's command and shell to run", 10)
    b_ended = asyncio.create_task(wait_for(app, BackgroundAgentEnded, timeout=20))
    b_noted = asyncio.create_task(wait_for(app, SessionIdle, lambda e: e.sessionID == session.id, 20))
    stopped = await app.stop_background_agent(b_id)
    assert stopped.status == "stopped"
    assert running(marker) == []  # its command and its background shell are gone, process groups and all
    assert (await b_ended).summary == "stopped"
    await b_noted  # the idle parent took a turn for the news

    # A ends when the gate opens; its report reaches the parent as a message marked as A's.
    a_noted = asyncio.create_task(wait_for(app, SessionIdle, lambda e: e.sessionID == session.id, 20))
    gate.write_text("open")
    await a_noted
    results = subagent_results(await app.messages(session.id))
    labels = [(p.metadata or {})["context"]["label"] for p in results]
    assert labels == ["@general: job JOB-B", "@general: job JOB-A"]
    assert "was stopped by the user" in results[0].text
    assert (
        "A: the answer is 42." in results[1].text
        and f"task_id {roster['job JOB-A'].sessionID}" in results[1].text
    )
    last = model.requests[-1].messages
    assert any("A: the answer is 42." in str(m.get("content")) for m in last if m.get("role") == "user")
    final = {a.description: (a.status, a.step) for a in await app.background_agents(session.id)}
    assert final == {"job JOB-A": ("completed", 2), "job JOB-B": ("stopped", 1)}  # steps seen while they ran
    assert model.pending == 0


def tool_outputs(messages: list) -> list[str]:  # type: ignore[type-arg]
    return [
        str(getattr(p.state, "output", None) or getattr(p.state, "error", ""))
        for m in messages
        for p in m.parts
        if isinstance(p, ToolPart)
    ]


async def test_the_parent_may_not_overwrite_a_file_a_background_sub_agent_changed(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    shared, gate = project / "shared.py", project / "gate"
    model.script(
        Turn.tool_call("task", task("JOB-C")),
        Turn.tool_call("bash", {"command": wait_for_file(shared), "description": "wait for C"}),
        Turn.tool_call("write", {"filePath": "shared.py", "content": "parent's\n"}),
        Turn.text("I leave shared.py to C."),
        Turn.text("C is done; now I can edit it."),
    )
    model.script_for(
        "JOB-C",
        Turn.tool_call("write", {"filePath": "shared.py", "content": "C's\n"}),
        Turn.tool_call("bash", {"command": wait_for_file(gate), "description": "wait"}),
        Turn.tool_call("write", {"filePath": "calc.py", "content": "C's calc\n"}),
        Turn.text("C done."),
    )
    session = await app.create_session()
    answer = await asyncio.wait_for(app.prompt(session.id, [TextInput(text="work with C")]), 20)
    assert text_of(answer) == "I leave shared.py to C."
    refused = tool_outputs(await app.messages(session.id))[-1]
    assert "shared.py is being changed by the sub-agent @general" in refused
    assert "leave this file to it until its result arrives" in refused
    assert shared.read_text() == "C's\n"  # nothing of the parent's write landed
    # calc.py is no one's: C may write it.
    noted = asyncio.create_task(wait_for(app, SessionIdle, lambda e: e.sessionID == session.id, 20))
    gate.write_text("open")
    await noted
    assert (project / "calc.py").read_text() == "C's calc\n"
    assert model.pending == 0


async def test_a_fifth_background_sub_agent_is_refused_and_closing_stops_the_four(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    gate = project / "never"
    first = Turn.tool_call("task", task("JOB-1"))
    for n in range(2, 6):
        first = first.tool_call("task", task(f"JOB-{n}"))
    model.script(first, Turn.text("Four run; the fifth waits."))
    for n in range(1, 6):
        model.script_for(
            f"JOB-{n}", Turn.tool_call("bash", {"command": wait_for_file(gate), "description": "w"})
        )
    session = await app.create_session()
    answer = await asyncio.wait_for(app.prompt(session.id, [TextInput(text="five jobs")]), 20)
    assert text_of(answer) == "Four run; the fifth waits."
    outputs = tool_outputs(await app.messages(session.id))
    assert sum("Started in the background" in o for o in outputs) == 4
    [refusal] = [o for o in outputs if "Started" not in o]
    assert "this session already runs 4 background sub-agents" in refusal
    assert "wait for a result, or run this task without background" in refusal
    # The four wait on the gate, each in its own command.
    await until(lambda: len(running(str(gate))) >= 4, "the four sub-agents' commands")
    requests = len(model.requests)
    await harness.close()
    assert running(str(gate)) == []  # closing stopped them, commands and all
    assert len(model.requests) == requests  # and started no turn of the parent for their news
    assert model.pending == 1  # the fifth sub-agent never asked


async def test_agentls_run_waits_for_the_background_sub_agents_report_and_its_turn(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(
        Turn.tool_call("task", task("JOB-R")),
        Turn.text("Waiting for R."),
        Turn.text("R says 42."),
    )
    model.script_for("JOB-R", Turn.text("R: the answer is 42."))
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, permission="allow"))
    code, out, err = await agentls("run", "ask R", cwd=project, env=env)
    assert code == 0, err
    assert out.index("Waiting for R.") < out.index("R says 42."), out  # the report's own turn, printed
    assert model.pending == 0


async def test_deleting_the_parent_stops_its_background_sub_agents(
    make_harness: HarnessFactory, model: FakeModelServer, tmp_path: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    marker = f"delmark{abs(hash(str(tmp_path))) % 10**8}"
    model.script(Turn.tool_call("task", task("JOB-D")), Turn.text("It runs."))
    model.script_for("JOB-D", Turn.tool_call("bash", {"command": sleeper(marker), "description": "block"}))
    session = await app.create_session()
    await asyncio.wait_for(app.prompt(session.id, [TextInput(text="start D")]), 20)
    await until(lambda: running(marker), "D's command to run", 10)
    ended = asyncio.create_task(wait_for(app, BackgroundAgentEnded, timeout=20))
    await app.delete_session(session.id)
    assert (await ended).agent.status == "stopped"
    await until(lambda: not running(marker), "D's command to die with it", 10)
    assert await app.background_agents() == [] or all(
        a.status != "running" for a in await app.background_agents()
    )
    assert model.pending == 0  # and no turn was started for the news of a deleted session
