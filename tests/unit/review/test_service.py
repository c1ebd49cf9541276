"""The review service on a real git project, real snapshots (git store and journal) and real SQLite."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core import ids
from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, StorageError, ToolError
from core.events import AgentWarning, Event, ReviewUpdated
from core.message.models import Session, SessionRevert, SessionTime, now_ms
from core.message.review import Hunk
from core.review.service import ReviewService
from core.session.sessions import Sessions
from core.session.snapshots import SnapshotService
from core.snapshot.factory import open_snapshots
from core.storage.store import Store
from core.workspace import DiskWorkspace, EditContext
from tests.unit.snapshot.harness import Agent, StoreSessions, writes

MAIN = b"".join(f"line {n}\n".encode() for n in range(1, 21))


def _edited(text: bytes, changes: dict[int, bytes]) -> bytes:
    """``text`` with 1-based lines replaced (an empty value deletes the line)."""
    lines = text.splitlines(keepends=True)
    for number, new in changes.items():
        lines[number - 1] = new
    return b"".join(lines)


@dataclass
class Env:
    root: Path
    data: Path
    store: Store
    agent: Agent
    review: ReviewService
    events: list[Event] = field(default_factory=list)

    async def step(self, files: dict[str, bytes | None]) -> None:
        user = await self.agent.user()
        msg = await self.agent.reply(user)
        await self.agent.step(msg, writes(self.root, files))
        await self.review.record(self.agent.session.id)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_bytes(MAIN)
    (root / "gone.txt").write_text("the agent deletes me\n")
    (root / "image.bin").write_bytes(bytes(range(256)) * 4)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture(params=["git", "journal"])
async def env(request: pytest.FixtureRequest, tmp_path: Path, project: Path) -> AsyncIterator[Env]:
    root = project
    data = tmp_path / "data"
    data.mkdir()
    setup = open_snapshots(data, "prj_review", root, DiskWorkspace(root), use_git=request.param == "git")
    store = await Store.open(data / "agentls.db")
    bus = Bus()
    agent = await Agent.start(store, setup.snapshots, setup.workspace, root)
    review = ReviewService(store, StoreSessions(store), setup.snapshots, setup.workspace, bus, root)
    env = Env(root, data, store, agent, review)
    bus.listen(env.events.append, ReviewUpdated)
    try:
        yield env
    finally:
        await store.close()


async def test_every_kind_of_change_becomes_pending_hunks_across_steps(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {3: b"three\n", 15: b"fifteen\n"}), "new.txt": b"hi\n"})
    await env.step({"gone.txt": None, "image.bin": bytes(reversed(range(256)))})
    pending = await env.review.pending(env.agent.session.id)
    assert [(h.file, h.kind, h.lines_label()) for h in pending] == [
        ("new.txt", "created", "the new file"),
        ("src/main.py", "text", "line 3"),
        ("src/main.py", "text", "line 15"),
        ("gone.txt", "deleted", "its deletion"),
        ("image.bin", "binary", "the file"),
    ]
    assert {h.state for h in pending} == {"pending"}
    assert [e.pending for e in env.events if isinstance(e, ReviewUpdated)] == [3, 5]
    await env.review.record(env.agent.session.id)  # recording again adds nothing
    assert len(await env.review.pending(env.agent.session.id)) == 5


async def test_undo_one_hunk_keeps_the_users_edits_and_the_other_hunks(env: Env) -> None:
    agent_version = _edited(MAIN, {3: b"three\n", 15: b"fifteen\n"})
    await env.step({"src/main.py": agent_version})
    main = env.root / "src" / "main.py"
    main.write_bytes(b"# the user's header\n" + _edited(agent_version, {10: b"user's line 10\n"}))
    first = (await env.review.pending(env.agent.session.id))[0]
    result = await env.review.undo(env.agent.session.id, [first.id])
    assert [h.id for h in result.changed] == [first.id] and not result.conflicts
    assert main.read_bytes() == b"# the user's header\n" + _edited(
        MAIN, {10: b"user's line 10\n", 15: b"fifteen\n"}
    )
    left = await env.review.pending(env.agent.session.id)
    assert [h.lines_label() for h in left] == ["line 15"]


async def test_undoing_a_change_the_agent_changed_again_later_does_not_blame_the_user(env: Env) -> None:
    first = _edited(MAIN, {3: b"three\n"})
    await env.step({"src/main.py": first})
    await env.step({"src/main.py": _edited(first, {3: b"THREE\n"})})  # the agent again, same line
    older, newer = await env.review.pending(env.agent.session.id)
    result = await env.review.undo(env.agent.session.id, [older.id])
    (conflict,) = result.conflicts
    assert conflict.reason.startswith("the agent changed these lines again in a later step (line 3")
    assert "you" not in conflict.reason
    # Undoing the later change first, then the older one, goes through.
    await env.review.undo(env.agent.session.id, [newer.id])
    assert not (await env.review.undo(env.agent.session.id, [older.id])).conflicts
    assert (env.root / "src" / "main.py").read_bytes() == MAIN


async def test_an_undo_over_the_users_edit_is_a_conflict_and_writes_nothing(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {3: b"three\n"})})
    main = env.root / "src" / "main.py"
    mine = _edited(MAIN, {3: b"three, as the user fixed it\n"})
    main.write_bytes(mine)
    result = await env.review.undo(env.agent.session.id)
    assert not result.changed
    (conflict,) = result.conflicts
    assert (conflict.agent, conflict.current) == (["three\n"], ["three, as the user fixed it\n"])
    assert main.read_bytes() == mine
    assert len(await env.review.pending(env.agent.session.id)) == 1


async def test_whole_file_undos_and_a_file_the_user_renamed(env: Env) -> None:
    image = (env.root / "image.bin").read_bytes()
    await env.step({"new.txt": b"hi\n", "gone.txt": None, "image.bin": b"\0changed"})
    await env.step({"src/main.py": _edited(MAIN, {1: b"one\n"})})
    (env.root / "src" / "main.py").rename(env.root / "src" / "renamed.py")
    result = await env.review.undo(env.agent.session.id)
    assert sorted(h.file for h in result.changed) == ["gone.txt", "image.bin", "new.txt"]
    assert [c.reason for c in result.conflicts] == [
        "the file is gone (renamed or deleted since the agent changed it)"
    ]
    assert not (env.root / "new.txt").exists()
    assert (env.root / "gone.txt").read_text() == "the agent deletes me\n"
    assert (env.root / "image.bin").read_bytes() == image
    assert (env.root / "src" / "renamed.py").read_bytes() == _edited(MAIN, {1: b"one\n"})


async def test_keep_by_file_then_undo_all_and_unknown_ids(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {2: b"two\n"}), "new.txt": b"hi\n"})
    kept = await env.review.keep(env.agent.session.id, file="src/main.py")
    assert [h.state for h in kept.changed] == ["kept"]
    undone = await env.review.undo(env.agent.session.id)
    assert [h.file for h in undone.changed] == ["new.txt"]
    assert (env.root / "src" / "main.py").read_bytes() == _edited(MAIN, {2: b"two\n"})
    assert await env.review.pending(env.agent.session.id) == []
    with pytest.raises(NotFoundError, match="no hunk hnk_nope"):
        await env.review.undo(env.agent.session.id, ["hnk_nope"])


async def test_the_model_is_told_once_what_was_undone(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {10: b"ten\n", 11: b"eleven\n"})})
    delivered: list[str] = []

    async def deliver(note: str) -> bool:
        delivered.append(note)
        return len(delivered) > 1  # the first delivery fails: the note comes again

    assert await env.review.tell(env.agent.session.id, deliver) is None
    await env.review.undo(env.agent.session.id)
    assert await env.review.tell(env.agent.session.id, deliver) is not None
    await env.review.tell(env.agent.session.id, deliver)
    assert await env.review.tell(env.agent.session.id, deliver) is None
    assert len(delivered) == 2 and delivered[0] == delivered[1]
    # Where, and what the agent wrote against what is there again.
    assert "- src/main.py, lines 10-11: you wrote\n    ten\n    eleven\n  and it is back to\n" in delivered[0]
    assert "    line 10\n    line 11" in delivered[0]


async def test_hunks_survive_a_restart_and_a_fork_copies_them(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {2: b"two\n", 9: b"nine\n"})})
    first = (await env.review.pending(env.agent.session.id))[0]
    await env.review.keep(env.agent.session.id, [first.id])
    await env.store.close()
    env.store = store = await Store.open(env.data / "agentls.db")
    (hunk,) = await store.hunks(env.agent.session.id, "pending")
    assert hunk.lines_label() == "line 9"
    t = now_ms()
    fork = Session(
        id=ids.descending("ses"),
        projectID=env.agent.session.projectID,
        title="fork",
        directory=str(env.root),
        time=SessionTime(created=t, updated=t),
    )
    await store.fork(env.agent.session.id, None, fork)
    copied = await store.hunks(fork.id)
    assert [(h.state, h.sessionID) for h in copied] == [("kept", fork.id), ("pending", fork.id)]
    assert {h.id for h in copied}.isdisjoint({first.id, hunk.id})
    # The fork's copy of the step counts as examined, like its source's.
    assert await store.reviewed_steps(fork.id) == {h.stepID for h in copied}


async def test_a_step_noted_as_examined_counts_as_reviewed_without_hunks(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {2: b"two\n"})})
    sid = env.agent.session.id
    (hunk,) = await env.review.pending(sid)
    await env.store.examined([(sid, hunk.messageID, "prt_nohunks")])  # as a step with no hunk is noted
    assert await env.store.reviewed_steps(sid) == {hunk.stepID, "prt_nohunks"}


async def test_a_reverted_turn_has_nothing_to_review(env: Env) -> None:
    await env.step({"new.txt": b"hi\n"})
    messages = await env.store.list_messages(env.agent.session.id)
    session = env.agent.session.model_copy(update={"revert": SessionRevert(messageID=messages[0].info.id)})
    await env.store.update_session(session)
    assert await env.review.pending(env.agent.session.id) == []


async def test_a_removed_message_takes_its_hunks_along(env: Env) -> None:
    await env.step({"new.txt": b"hi\n"})
    await env.step({"src/main.py": _edited(MAIN, {4: b"four\n"})})
    first_reply = (await env.store.list_messages(env.agent.session.id))[1]
    await env.store.remove_message(env.agent.session.id, first_reply.info.id)
    assert [h.file for h in await env.store.hunks(env.agent.session.id)] == ["src/main.py"]


class RefusingWorkspace(DiskWorkspace):
    """An editor that refuses every edit (as a user may, or a buffer it cannot change)."""

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        raise ToolError("the editor refused the edit of main.py; the file is unchanged")


async def test_a_refused_write_is_a_conflict_and_the_hunk_stays_pending(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {2: b"two\n"}), "new.txt": b"hi\n"})
    refusing = ReviewService(
        env.store, StoreSessions(env.store), env.agent.snapshots, RefusingWorkspace(env.root), Bus(), env.root
    )
    result = await refusing.undo(env.agent.session.id)
    assert [h.file for h in result.changed] == ["new.txt"]  # deleting went through
    (conflict,) = result.conflicts
    assert conflict.file == "src/main.py" and "the editor refused" in conflict.reason
    assert [h.file for h in await env.review.pending(env.agent.session.id)] == ["src/main.py"]
    assert (env.root / "src" / "main.py").read_bytes() == _edited(MAIN, {2: b"two\n"})


async def test_a_collected_snapshot_is_a_conflict_not_a_crash(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {2: b"two\n"})})
    (hunk,) = await env.review.pending(env.agent.session.id)
    await env.store.update_hunks([hunk.model_copy(update={"afterSnapshot": "0" * 40})])
    result = await env.review.undo(env.agent.session.id)
    (conflict,) = result.conflicts
    assert conflict.reason.startswith("the agent's version is no longer stored")
    assert (env.root / "src" / "main.py").read_bytes() == _edited(MAIN, {2: b"two\n"})


class BrokenReview(ReviewService):
    async def record(self, session_id: str) -> list[Hunk]:
        raise StorageError("database write failed: disk I/O error")


async def test_hunks_that_cannot_be_recorded_warn_and_the_step_goes_on(env: Env) -> None:
    bus = Bus()
    warnings: list[Event] = []
    bus.listen(warnings.append, AgentWarning)
    service = SnapshotService(
        env.agent.snapshots, env.agent.workspace, Sessions(env.store, bus), bus, lambda _: False, env.root
    )
    service.review = BrokenReview(
        env.store, StoreSessions(env.store), env.agent.snapshots, env.agent.workspace, bus, env.root
    )
    await env.step({"new.txt": b"hi\n"})
    await service.on_patch(env.agent.session.id)  # no exception: the turn is not failed
    (warning,) = warnings
    assert isinstance(warning, AgentWarning) and warning.kind == "review"
    assert "could not be recorded for review (database write failed" in warning.message


async def test_an_editor_edit_joins_the_review_and_is_undone_where_its_line_went(env: Env) -> None:
    await env.step({"src/main.py": _edited(MAIN, {3: b"three\n"})})
    session_id = env.agent.session.id
    main = env.root / "src" / "main.py"
    # The user applies the agent's pattern at line 15 in the editor (not a step): it is recorded.
    applied = _edited(MAIN, {3: b"three\n", 15: b"fifteen\n"})
    main.write_bytes(applied)
    (edit,) = await env.review.record_edit(
        session_id, "src/main.py", _edited(applied, {15: b"line 15\n"}), applied
    )
    assert (edit.kind, edit.lines_label(), edit.before, edit.after) == (
        "text",
        "line 15",
        ["line 15\n"],
        ["fifteen\n"],
    )
    assert [e.pending for e in env.events if isinstance(e, ReviewUpdated)] == [1, 2]
    assert [h.id for h in await env.review.pending(session_id)][-1] == edit.id
    # The user adds lines above it since: undo finds the edited line where it went.
    main.write_bytes(b"# header\n# more\n" + applied)
    result = await env.review.undo(session_id, [edit.id])
    assert [h.id for h in result.changed] == [edit.id] and not result.conflicts
    assert main.read_bytes() == b"# header\n# more\n" + _edited(MAIN, {3: b"three\n"})
    # An edit of the same line again, then changed by the user: a conflict that writes nothing.
    (again,) = await env.review.record_edit(
        session_id, "src/main.py", MAIN, _edited(MAIN, {15: b"fifteen\n"})
    )
    mine = _edited(MAIN, {15: b"fifteen, as the user fixed it\n"})
    main.write_bytes(mine)
    (conflict,) = (await env.review.undo(session_id, [again.id])).conflicts
    assert conflict.reason == "you changed the edited lines" and main.read_bytes() == mine


async def test_an_editor_edit_of_an_unknown_session_or_a_binary_file_records_nothing(env: Env) -> None:
    with pytest.raises(NotFoundError):
        await env.review.record_edit("ses_unknown", "src/main.py", MAIN, _edited(MAIN, {1: b"one\n"}))
    session_id = env.agent.session.id
    with pytest.raises(InvalidInputError, match="no turn"):  # a session without a message yet
        await env.review.record_edit(session_id, "src/main.py", MAIN, _edited(MAIN, {1: b"one\n"}))
    await env.step({"src/main.py": _edited(MAIN, {3: b"three\n"})})
    with pytest.raises(InvalidInputError, match="not text"):
        await env.review.record_edit(session_id, "image.bin", b"\0\1", b"\0\2")
    assert await env.review.record_edit(session_id, "src/main.py", MAIN, MAIN) == []
    assert len(await env.review.pending(session_id)) == 1


async def test_a_sessions_review_holds_its_nested_sub_agents_hunks_once_each(env: Env) -> None:
    """A sub-agent's sub-agent (a config may allow ``task`` to sub-agents): every session above a
    hunk lists it, marked with who made it, hears of it, and can undo it for all of them."""
    review = ReviewService(
        env.store,
        StoreSessions(env.store),
        env.agent.snapshots,
        env.agent.workspace,
        bus := Bus(),
        env.root,
        children=env.store.child_sessions,
    )
    heard: list[Event] = []
    bus.listen(heard.append, ReviewUpdated)

    async def sub_agent(parent: Agent, title: str) -> Agent:
        t = now_ms()
        session = Session(
            id=ids.descending("ses"),
            projectID=parent.session.projectID,
            parentID=parent.session.id,
            title=title,
            directory=str(env.root),
            time=SessionTime(created=t, updated=t),
        )
        await env.store.insert_session(session)
        return Agent(env.store, parent.snapshots, parent.workspace, session)

    async def step(agent: Agent, lines: dict[int, bytes]) -> None:
        main = env.root / "src" / "main.py"
        msg = await agent.reply(await agent.user())
        await agent.step(msg, writes(env.root, {"src/main.py": _edited(main.read_bytes(), lines)}))
        await review.record(agent.session.id)

    parent = env.agent
    child = await sub_agent(parent, "look around (@general)")
    grandchild = await sub_agent(child, "dig deeper (@explore)")
    await step(parent, {3: b"three\n"})
    await step(child, {10: b"ten\n"})
    await step(grandchild, {15: b"fifteen\n"})

    pending = await review.pending(parent.session.id)
    assert [(h.after, h.sessionID) for h in pending] == [
        (["three\n"], parent.session.id),
        (["ten\n"], child.session.id),
        (["fifteen\n"], grandchild.session.id),
    ]
    assert [h.by() for h in pending] == ["", " by @general: look around", " by @explore: dig deeper"]
    assert [h.id for h in await review.pending(child.session.id)] == [h.id for h in pending[1:]]
    # The grandchild's hunk was announced to it and to both sessions above it, each with its count.
    announced = [(e.sessionID, e.pending) for e in heard if isinstance(e, ReviewUpdated)][-3:]
    assert announced == [(grandchild.session.id, 1), (child.session.id, 2), (parent.session.id, 3)]

    # Undone from the top session: gone from every review, the file back, the others untouched.
    result = await review.undo(parent.session.id, [pending[2].id])
    assert [h.id for h in result.changed] == [pending[2].id] and not result.conflicts
    assert (env.root / "src" / "main.py").read_bytes() == _edited(MAIN, {3: b"three\n", 10: b"ten\n"})
    assert await review.pending(grandchild.session.id) == []
    assert [h.id for h in await review.pending(parent.session.id)] == [pending[0].id, pending[1].id]
    # Undoing it again from the sub-agent's own review changes nothing: it is the same hunk.
    assert (await review.undo(grandchild.session.id, [pending[2].id])).changed == []
