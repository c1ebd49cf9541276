"""Session and per-turn diff summaries and the session.diff event."""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.bus import Bus
from core.events import SessionDiff
from core.message.models import DiffSummary, UserMessage
from core.snapshot.revert import Reverter
from core.snapshot.store import SnapshotStore
from core.snapshot.summary import SessionDiffs
from core.storage.store import Store
from core.workspace import DiskWorkspace
from tests.unit.storage import factories as f

from .harness import Agent, StoreSessions, writes


async def test_summaries_per_session_and_turn(store: SnapshotStore, project: Path, data_dir: Path) -> None:
    bus = Bus()
    async with await Store.open(data_dir / "agentls.db") as db:
        sessions = StoreSessions(db)
        ws = DiskWorkspace(project)
        agent = await Agent.start(db, store, ws, project)
        diffs = SessionDiffs(sessions, store, bus)
        first = await agent.user()
        await agent.step(await agent.reply(first), writes(project, {"a.txt": b"1\n2\n"}))
        second = await agent.user()
        reply = await agent.reply(second)
        await agent.step(reply, writes(project, {"src/main.py": b"print('bye')\n", "c.txt": b"c\n"}))
        # A change of the user's own outside any step never shows in the agent's diff.
        (project / "crlf.txt").write_bytes(b"user\n")
        await agent.step(reply, writes(project, {"c.txt": b"c\nd\n"}))

        with bus.subscribe(SessionDiff) as sub:
            result = await diffs.summarize(agent.session.id)
            event = await asyncio.wait_for(sub.get(), timeout=5)
        assert isinstance(event, SessionDiff) and event.sessionID == agent.session.id
        assert [d.file for d in event.diff] == ["a.txt", "c.txt", "src/main.py"] == [d.file for d in result]
        c = next(d for d in result if d.file == "c.txt")
        assert (c.before, c.after, c.additions) == (None, "c\nd\n", 2)

        session = await sessions.get(agent.session.id)
        assert session.summary == DiffSummary(additions=5, deletions=1, files=3)
        users = {m.info.id: m.info for m in await sessions.messages(agent.session.id)}
        assert isinstance(users[first.id], UserMessage) and isinstance(users[second.id], UserMessage)
        assert users[first.id].summary == DiffSummary(additions=2, deletions=0, files=1)
        assert users[second.id].summary == DiffSummary(additions=3, deletions=1, files=2)

        turn = await diffs.diff(agent.session.id, second.id)
        assert [d.file for d in turn] == ["c.txt", "src/main.py"]
        assert [d.file for d in await diffs.diff(agent.session.id, reply.id)] == ["c.txt", "src/main.py"]

        # A reverted turn drops out of the session's summary.
        await Reverter(sessions, store, ws, lambda _s: False).revert(agent.session.id, second.id)
        await diffs.summarize(agent.session.id)
        session = await sessions.get(agent.session.id)
        assert session.summary == DiffSummary(additions=2, deletions=0, files=1)


async def test_pruned_snapshot_is_reported_not_dropped(
    store: SnapshotStore, project: Path, data_dir: Path
) -> None:
    async with await Store.open(data_dir / "agentls.db") as db:
        sessions = StoreSessions(db)
        agent = await Agent.start(db, store, DiskWorkspace(project), project)
        user = await agent.user()
        await agent.step(await agent.reply(user), writes(project, {"a.txt": b"a\n"}))
        store.keep_days = 0
        await store.gc()  # drops the step's start snapshot
        result = await SessionDiffs(sessions, store).diff(agent.session.id)
        assert [d.file for d in result] == ["a.txt"]
        assert result[0].patch is not None and "no diff available" in result[0].patch


async def test_a_revert_to_a_text_part_mid_reply_counts_only_what_came_before(
    store: SnapshotStore, project: Path, data_dir: Path
) -> None:
    # The summary reads only step and patch parts, plus the part the revert points at.
    async with await Store.open(data_dir / "agentls.db") as db:
        sessions = StoreSessions(db)
        ws = DiskWorkspace(project)
        agent = await Agent.start(db, store, ws, project)
        diffs = SessionDiffs(sessions, store)
        reply = await agent.reply(await agent.user())
        await agent.step(reply, writes(project, {"a.txt": b"1\n"}))
        said = f.text(agent.session.id, reply.id, "Now the second file.")
        await db.upsert_part(said)
        await agent.step(reply, writes(project, {"b.txt": b"2\n"}))
        assert [d.file for d in await diffs.summarize(agent.session.id)] == ["a.txt", "b.txt"]

        await Reverter(sessions, store, ws, lambda _s: False).revert(agent.session.id, reply.id, said.id)
        assert [d.file for d in await diffs.summarize(agent.session.id)] == ["a.txt"]
        session = await sessions.get(agent.session.id)
        assert session.summary == DiffSummary(additions=1, deletions=0, files=1)
