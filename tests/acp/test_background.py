"""A background sub-agent seen from an ACP client (the official SDK): the prompt's turn ends while it
runs; its report arrives later as a user message the client did not write (`user_message_chunk`,
named as the sub-agent's), followed by the agent's answer to it."""

from __future__ import annotations

from pathlib import Path

from acp.schema import UserMessageChunk

from acp_server.history import replay
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


async def test_a_background_sub_agents_report_reaches_the_client_with_its_answer(acp: Acp) -> None:
    job = {"description": "job R", "prompt": "JOB-R: find it", "subagent_type": "general", "background": True}
    acp.model.script(Turn.tool_call("task", job), Turn.text("R runs."), Turn.text("R says 42."))
    acp.model.script_for("JOB-R", Turn.text("R: the answer is 42."))
    run = await acp.run("background")
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
