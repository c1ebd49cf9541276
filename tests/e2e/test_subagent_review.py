"""Sub-agents' edits in the review of the session that started them, through the real loop and
real snapshots (the fake model scripted per session): each change shows once, marked with the
sub-agent that made it; keep and undo from the parent act on the sub-agent's hunk; a parent step
running while a background sub-agent writes claims only its own change."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.errors import NotFoundError
from core.events import BackgroundAgentEnded, ReviewUpdated, SessionIdle
from core.message.models import ToolPart
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import HarnessFactory
from .test_background_agents import task


async def test_a_foreground_sub_agents_edit_is_its_hunk_once_in_the_parents_review(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    model.script(Turn.tool_call("task", task("JOB-F", background=False)), Turn.text("It is fixed."))
    model.script_for(
        "JOB-F",
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.text("F: fixed the sign."),
    )
    session = await app.create_session()
    await asyncio.wait_for(app.prompt(session.id, [TextInput(text="fix add")]), 30)
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"

    (call,) = [p for m in await app.messages(session.id) for p in m.parts if isinstance(p, ToolPart)]
    child = (call.state.metadata or {})["sessionID"]  # type: ignore[union-attr]
    hunks = await app.review(session.id)
    assert [(h.file, h.sessionID, h.after) for h in hunks] == [("calc.py", child, ["    return a + b\n"])]
    assert hunks[0].agent is not None
    assert (hunks[0].agent.sessionID, hunks[0].agent.name, hunks[0].agent.description) == (
        child,
        "general",
        "job JOB-F",
    )
    # The sub-agent's own review shows the same hunk; kept from the parent, it is kept there too,
    # and both sessions hear of it.
    assert [h.id for h in await app.review(child)] == [hunks[0].id]
    heard = asyncio.create_task(
        wait_for(app, ReviewUpdated, lambda e: e.sessionID == child and e.pending == 0, timeout=10)
    )
    parent_heard = asyncio.create_task(
        wait_for(app, ReviewUpdated, lambda e: e.sessionID == session.id and e.pending == 0, timeout=10)
    )
    kept = await app.keep(session.id, [hunks[0].id])
    assert [(h.id, h.state) for h in kept.changed] == [(hunks[0].id, "kept")]
    assert [h.id for h in (await heard).changed] == [hunks[0].id]
    await parent_heard
    assert await app.review(session.id) == [] and await app.review(child) == []


async def test_a_background_sub_agents_edits_show_in_the_parents_review_and_undo_there(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    """The parent's step goes on while the sub-agent writes (its model answers only once the
    sub-agent is done): that step claims its own file only."""
    harness = await make_harness(permission="allow")
    app = harness.agent
    release = asyncio.Event()
    model.script(
        Turn.tool_call("task", task("JOB-B")),
        Turn.tool_call("write", {"filePath": "parent.py", "content": "mine = 1\n"}).slow_first_byte(release),
        Turn.text("Wrote mine; B runs."),
        Turn.text("Noted B's report."),
    )
    model.script_for(
        "JOB-B",
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.tool_call("write", {"filePath": "notes.txt", "content": "B was here\n"}),
        Turn.text("B: done."),
    )
    session = await app.create_session()
    ended = asyncio.create_task(wait_for(app, BackgroundAgentEnded, timeout=30))
    answer = asyncio.create_task(app.prompt(session.id, [TextInput(text="go")]))
    b = (await ended).agent
    # B wrote both files while the parent's second step was open (its model still holding back).
    assert (project / "notes.txt").read_text() == "B was here\n"
    noted = asyncio.create_task(wait_for(app, SessionIdle, lambda e: e.sessionID == session.id, 30))
    release.set()
    await asyncio.wait_for(answer, 30)
    await noted  # the report's turn too

    hunks = await app.review(session.id)
    by_file = {h.file: h for h in hunks}
    assert sorted(h.file for h in hunks) == ["calc.py", "notes.txt", "parent.py"]  # each once
    assert by_file["parent.py"].sessionID == session.id and by_file["parent.py"].agent is None
    for name in ("calc.py", "notes.txt"):
        agent = by_file[name].agent
        assert by_file[name].sessionID == b.sessionID
        assert agent is not None and (agent.name, agent.description) == ("general", "job JOB-B")

    # Undo B's edit of calc.py from the parent, with the user's edit beside it kept.
    (project / "calc.py").write_text("# mine\ndef add(a, b):\n    return a + b\n")
    undone = await app.undo(session.id, file="calc.py")
    assert [(h.id, h.state) for h in undone.changed] == [(by_file["calc.py"].id, "undone")]
    assert undone.conflicts == []
    assert (project / "calc.py").read_text() == "# mine\ndef add(a, b):\n    return a - b\n"
    assert sorted(h.file for h in await app.review(session.id)) == ["notes.txt", "parent.py"]
    assert [h.file for h in await app.review(b.sessionID)] == ["notes.txt"]

    # An unknown hunk id names itself; nothing changes.
    with pytest.raises(NotFoundError, match="hnk_nope"):
        await app.keep(session.id, ["hnk_nope"])
    assert len(await app.review(session.id)) == 2


async def test_a_reverted_turns_sub_agent_hunks_leave_the_parents_review(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    model.script(Turn.tool_call("task", task("JOB-R", background=False)), Turn.text("It is fixed."))
    model.script_for(
        "JOB-R",
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.text("R: fixed."),
    )
    session = await app.create_session()
    await asyncio.wait_for(app.prompt(session.id, [TextInput(text="fix add")]), 30)
    assert [h.file for h in await app.review(session.id)] == ["calc.py"]
    first = (await app.messages(session.id))[0].info.id
    await app.revert(session.id, first)
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert await app.review(session.id) == []
    await app.unrevert(session.id)
    assert [h.file for h in await app.review(session.id)] == ["calc.py"]
