"""The turns a dead agent host left unfinished, marked while the store stays open (another process
holds it, so crash recovery does not run): only the sessions named, every client told."""

from __future__ import annotations

from pathlib import Path

from core.bus import Bus
from core.events import MessageUpdated, PartUpdated
from core.message.models import AssistantMessage, TextPart, ToolPart, ToolStatePending
from core.session.interrupted import TOOL_INTERRUPTED, TURN_INTERRUPTED, mark_interrupted
from core.session.sessions import Sessions
from core.storage import Store
from tests.unit.storage import factories as f


async def _unfinished_turn(store: Store, project_id: str) -> dict[str, str]:
    """A session whose last turn a dead process left: running and pending tools, open text."""
    s = f.session(project_id)
    await store.insert_session(s)
    u = f.user(s.id)
    done = f.assistant(s.id, u.id)
    cut = f.assistant(s.id, u.id, completed=False)
    for m in (u, done, cut):
        await store.upsert_message(m)
    running = f.running_tool(s.id, cut.id)
    pending = f.running_tool(s.id, cut.id).model_copy(update={"state": ToolStatePending(raw="{")})
    text = f.text(s.id, cut.id, "half an ans")
    assert text.time is not None and text.time.end is None
    await store.upsert_parts([running, pending, text])
    return {"session": s.id, "done": done.id, "cut": cut.id, "running": running.id, "text": text.id}


async def test_the_named_sessions_unfinished_turns_are_marked_and_published(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    async with await Store.open(tmp_path / "agentls.db") as store:
        project = await store.ensure_project(tmp_path / "tree")
        mine = await _unfinished_turn(store, project.id)
        other = await _unfinished_turn(store, project.id)
        bus = Bus()
        sessions = Sessions(store, bus)
        with bus.subscribe(MessageUpdated, PartUpdated) as events:
            marked = await mark_interrupted(sessions, [mine["session"]])
            seen = [events.get_nowait() for _ in range(4)]
        assert marked == [mine["cut"]]

        [message] = [m for m in await sessions.messages(mine["session"]) if m.info.id == mine["cut"]]
        info = message.info
        assert isinstance(info, AssistantMessage) and info.time.completed is not None
        assert info.error is not None and info.error.message == TURN_INTERRUPTED
        tools = [p for p in message.parts if isinstance(p, ToolPart)]
        assert [p.state.status for p in tools] == ["error", "error"]
        assert all(p.state.error == TOOL_INTERRUPTED for p in tools)  # type: ignore[union-attr]
        [text] = [p for p in message.parts if isinstance(p, TextPart)]
        assert text.text == "half an ans" and text.time is not None and text.time.end is not None
        assert {type(e).__name__ for e in seen} == {"PartUpdated", "MessageUpdated"}

        # the session not named, and the finished turn, are left as they were
        untouched = (await store.get_message(other["session"], other["cut"])).info
        assert isinstance(untouched, AssistantMessage) and untouched.time.completed is None
        finished = (await store.get_message(mine["session"], mine["done"])).info
        assert isinstance(finished, AssistantMessage) and finished.error is None
        assert await mark_interrupted(sessions, [mine["session"]]) == []  # nothing left to mark
        await sessions.close()
