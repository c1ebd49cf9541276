"""A background sub-agent seen from an ACP client (the official SDK): the prompt's turn ends while it
runs, shown as a tool call of the session from its start to its end (the roster); its report arrives
later as a user message the client did not write (`user_message_chunk`, named as the sub-agent's),
followed by the agent's answer to it. The roster's calls for every state of a sub-agent and a shell,
as a table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import UserMessageChunk

from acp_server.background import agent_update, shell_update
from acp_server.history import replay
from core.events import BackgroundAgent, BackgroundShell
from core.message.models import (
    MessageWithParts,
    ModelRef,
    Session,
    SessionTime,
    TextPart,
    UserMessage,
    UserTime,
)
from demo.fake_script import Turn
from tests.acp.conftest import Acp
from tests.ticks import until


async def test_a_background_sub_agents_report_reaches_the_client_with_its_answer(
    acp: Acp, tmp_path: Path
) -> None:
    job = {"description": "job R", "prompt": "JOB-R: find it", "subagent_type": "general", "background": True}
    # The sub-agent's answer is held until the client has the prompt's answer: a report that arrives
    # while the turn still runs joins that turn (how fast the turn ends decided which, in-process or
    # attached); this test is about the report that comes after.
    answered, release = tmp_path / "answered", asyncio.Event()
    acp.model.script(Turn.tool_call("task", job), Turn.text("R runs."), Turn.text("R says 42."))
    acp.model.script_for("JOB-R", Turn.text("R: the answer is 42.").slow_first_byte(release))

    async def release_when_answered() -> None:
        await until(answered.exists, "the client's prompt answered", timeout=60)
        release.set()

    releasing = asyncio.create_task(release_when_answered())
    try:
        run = await acp.run("background", ANSWERED_FILE=str(answered))
    finally:
        releasing.cancel()
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    kinds = [
        (e["update"]["sessionUpdate"], e["update"].get("content", {}).get("text", ""))
        for e in run.log
        if e["kind"] == "update"
        and e["update"]["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]
    answered = next(i for i, e in enumerate(run.log) if e["kind"] == "answered")
    later = [e for e in run.log[answered:] if e["kind"] == "update"]
    reports = [
        e["update"]["content"]["text"] for e in later if e["update"]["sessionUpdate"] == "user_message_chunk"
    ]
    assert len(reports) == 1, kinds
    assert reports[0].startswith("Report of the background sub-agent @general: job R:")
    assert "R: the answer is 42." in reports[0]
    assert ("agent_message_chunk", "R says 42.") in kinds
    # The roster: the sub-agent is a tool call of the session, announced running, ended completed.
    calls = [
        e["update"]
        for e in run.log
        if e["kind"] == "update"
        and e["update"]["sessionUpdate"] in ("tool_call", "tool_call_update")
        and e["update"]["toolCallId"].startswith("background-agent:")
    ]
    assert calls, kinds
    assert calls[0]["sessionUpdate"] == "tool_call" and calls[0]["status"] == "in_progress", calls[0]
    assert calls[0]["title"] == "Background sub-agent @general: job R", calls[0]
    assert all(c["sessionUpdate"] == "tool_call_update" for c in calls[1:]), calls
    assert calls[-1]["status"] == "completed", calls[-1]
    assert calls[-1]["content"][0]["content"]["text"].startswith("Done after 1 step: "), calls[-1]
    assert len({c["toolCallId"] for c in calls}) == 1, calls


async def test_session_load_replays_the_report_as_the_sub_agents(tmp_path: Path) -> None:
    user = UserMessage(
        id="msg_1",
        sessionID="ses_p",
        time=UserTime(created=1),
        agent="build",
        model=ModelRef(providerID="fake", modelID="m"),
    )
    context = {"kind": "subagent", "label": "@general: job R"}
    report = TextPart(
        id="prt_1",
        sessionID="ses_p",
        messageID="msg_1",
        text="R: 42.",
        synthetic=True,
        metadata={"context": context},
    )
    attached = TextPart(
        id="prt_2", sessionID="ses_p", messageID="msg_1", text="<file>…</file>", synthetic=True
    )
    session = Session(
        id="ses_p", projectID="p", directory=str(tmp_path), title="t", time=SessionTime(created=1, updated=1)
    )
    sent: list[object] = []

    async def send(update: object) -> None:
        sent.append(update)

    await replay(session, [MessageWithParts(info=user, parts=[report, attached])], [], tmp_path, send)
    users = [u for u in sent if isinstance(u, UserMessageChunk)]
    assert [u.content.text for u in users] == [
        "Report of the background sub-agent @general: job R:\n\nR: 42."
    ]  # type: ignore[union-attr]


def _agent(status: str, **more: Any) -> BackgroundAgent:
    return BackgroundAgent(
        sessionID="ses_sub",
        parentID="ses_p",
        agent="general",
        description="job R",
        status=status,  # type: ignore[arg-type]
        started=1,
        **more,
    )


def _shell(status: str, exit_code: int | None = None, tail: str = "") -> BackgroundShell:
    return BackgroundShell(
        id="shell_1",
        sessionID="ses_p",
        command="python -m http.server",
        started=1,
        status=status,  # type: ignore[arg-type]
        exitCode=exit_code,
        tail=tail,
    )


@pytest.mark.parametrize(
    ("update", "status", "text"),
    [
        (
            agent_update(_agent("running", step=2, tool="bash", tokens=1234), False),
            "in_progress",
            "Step 2, running bash · 1,234 tokens",
        ),
        (agent_update(_agent("running", step=1), True), "in_progress", "Step 1 · 0 tokens"),
        (
            agent_update(_agent("completed", step=3), True, "it is 42"),
            "completed",
            "Done after 3 steps: it is 42",
        ),
        (agent_update(_agent("failed", error="model error"), True), "failed", "Failed: model error"),
        (agent_update(_agent("stopped"), True), "failed", "Stopped."),
        (
            shell_update(_shell("running", tail="Serving on 8000\n"), False),
            "in_progress",
            "```\nServing on 8000\n```\nRunning.",
        ),
        (shell_update(_shell("exited", 0), True), "completed", "Exited with 0."),
        (shell_update(_shell("exited", 2, "boom"), True), "failed", "```\nboom\n```\nExited with 2."),
        (shell_update(_shell("stopped"), True), "failed", "Stopped."),
    ],
)
def test_the_roster_calls_say_each_state(update: Any, status: str, text: str) -> None:
    assert update.status == status
    assert update.content[0].content.text == text
    # Only the first event about one announces it (the rows built with announced=False).
    assert (update.session_update == "tool_call") == (text.startswith("Step 2") or "Serving" in text)
    assert update.tool_call_id in ("background-agent:ses_sub", "background-shell:shell_1")
