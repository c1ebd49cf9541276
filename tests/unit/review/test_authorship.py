"""A step's hunks are the agent's own writes: what the user changed meanwhile (another file, another
part of the file the agent edits) stays out of review, and keep/undo still work. Real snapshots (git
store and journal), real SQLite, the snapshot hooks and the workspace the tools write through."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from core import ids
from core.bus import Bus
from core.events import PartUpdated, SessionIdle
from core.message.models import (
    PatchPart,
    StepFinishPart,
    StepStartPart,
    ToolPart,
    ToolStateRunning,
    ToolTimeStart,
)
from core.review.authorship import Write, WriteLog, agent_only
from core.session.sessions import Sessions
from core.session.snapshots import SnapshotService
from core.snapshot.factory import open_snapshots
from core.storage.store import Store
from core.workspace import DiskWorkspace, EditContext
from tests.unit.snapshot.harness import Agent

MAIN = b"".join(f"line {n}\n".encode() for n in range(1, 21))
CTX = EditContext("agent: edit", session_id=None)
APPROVED = EditContext("agent: edit", session_id=None, approved=True)


def _edited(text: bytes, changes: dict[int, bytes]) -> bytes:
    lines = text.splitlines(keepends=True)
    for number, new in changes.items():
        lines[number - 1] = new
    return b"".join(lines)


@dataclass
class Env:
    root: Path
    agent: Agent
    service: SnapshotService
    backend: str

    async def step(self, during: Callable[[], Awaitable[None]]) -> None:
        """One step as the processor runs it: start snapshot, ``during`` (the tools and the user),
        end snapshot, patch part, review recorded."""
        hooks = self.service.hooks()
        msg = await self.agent.reply(await self.agent.user())
        start = await hooks.track(msg.sessionID)
        assert start is not None
        await self.agent.store.upsert_part(
            StepStartPart(id=ids.ascending("prt"), sessionID=msg.sessionID, messageID=msg.id, snapshot=start)
        )
        await during()
        end = await hooks.track(msg.sessionID)
        assert end is not None
        await self.agent.store.upsert_part(
            StepFinishPart(
                id=ids.ascending("prt"),
                sessionID=msg.sessionID,
                messageID=msg.id,
                reason="stop",
                snapshot=end,
            )
        )
        files = await hooks.changed_files(start, end, msg.sessionID)
        if files:
            part = PatchPart(
                id=ids.ascending("prt"), sessionID=msg.sessionID, messageID=msg.id, hash=start, files=files
            )
            await self.agent.store.upsert_part(part)
        await self.service.review.record(self.agent.session.id)

    async def agent_writes(self, rel: str, data: bytes, ctx: EditContext = CTX) -> None:
        await self.service.workspace.write_bytes(self.root / rel, data, ctx)

    async def agent_deletes(self, rel: str, ctx: EditContext = CTX) -> None:
        await self.service.workspace.delete(self.root / rel, ctx)

    def user_writes(self, rel: str, data: bytes) -> None:
        (self.root / rel).write_bytes(data)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "main.py").write_bytes(MAIN)
    (root / "other.py").write_bytes(MAIN)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture(params=["git", "journal"])
async def env(request: pytest.FixtureRequest, tmp_path: Path, project: Path) -> AsyncIterator[Env]:
    root = project
    data = tmp_path / "data"
    data.mkdir()
    setup = open_snapshots(data, "prj_authors", root, DiskWorkspace(root), use_git=request.param == "git")
    store = await Store.open(data / "agentls.db")
    bus = Bus()
    service = SnapshotService(
        setup.snapshots, setup.workspace, Sessions(store, bus), bus, lambda _: False, root
    )
    agent = await Agent.start(store, setup.snapshots, service.workspace, root)
    try:
        yield Env(root, agent, service, request.param)
    finally:
        await store.close()


async def test_the_users_edits_during_a_step_are_not_agent_hunks(env: Env) -> None:
    async def during() -> None:
        env.user_writes("other.py", _edited(MAIN, {5: b"user's five\n"}))  # a file the agent never writes
        env.user_writes("main.py", _edited(MAIN, {15: b"user's fifteen\n"}))  # before the agent's write
        await env.agent_writes("main.py", _edited(MAIN, {3: b"three\n", 15: b"user's fifteen\n"}))
        env.user_writes("main.py", _edited(MAIN, {3: b"three\n", 15: b"user's fifteen\n", 18: b"user 18\n"}))

    await env.step(during)
    sid = env.agent.session.id
    pending = await env.service.review.pending(sid)
    assert [(h.file, h.before, h.after) for h in pending] == [("main.py", ["line 3\n"], ["three\n"])]

    result = await env.service.review.undo(sid)
    assert [h.id for h in result.changed] == [pending[0].id] and not result.conflicts
    assert (env.root / "main.py").read_bytes() == _edited(MAIN, {15: b"user's fifteen\n", 18: b"user 18\n"})
    assert (env.root / "other.py").read_bytes() == _edited(MAIN, {5: b"user's five\n"})


async def test_several_writes_to_one_file_with_the_user_typing_between_them(env: Env) -> None:
    first = _edited(MAIN, {2: b"two\n"})

    async def during() -> None:
        await env.agent_writes("main.py", first)
        env.user_writes("main.py", _edited(first, {10: b"user's ten\n"}))
        await env.agent_writes("main.py", _edited(first, {10: b"user's ten\n", 19: b"nineteen\n"}))

    await env.step(during)
    sid = env.agent.session.id
    pending = await env.service.review.pending(sid)
    assert [(h.before, h.after) for h in pending] == [
        (["line 2\n"], ["two\n"]),
        (["line 19\n"], ["nineteen\n"]),
    ]
    kept = await env.service.review.keep(sid, [pending[1].id])
    assert [h.state for h in kept.changed] == ["kept"]
    await env.service.review.undo(sid)
    assert (env.root / "main.py").read_bytes() == _edited(MAIN, {10: b"user's ten\n", 19: b"nineteen\n"})


async def test_writes_the_user_approved_in_their_dialog_are_not_reviewed_again(env: Env) -> None:
    async def during() -> None:
        await env.agent_writes("main.py", _edited(MAIN, {3: b"three\n"}), APPROVED)
        await env.agent_writes("new.py", b"created\n", APPROVED)
        await env.agent_deletes("other.py", APPROVED)

    await env.step(during)
    assert await env.service.review.pending(env.agent.session.id) == []
    assert await env.service.review.hunks(env.agent.session.id) == []


async def test_a_step_that_left_no_hunk_is_not_reviewed_again_at_the_next_step(env: Env) -> None:
    approved = _edited(MAIN, {3: b"three\n"})

    async def allowed() -> None:
        await env.agent_writes("main.py", approved, APPROVED)
        env.user_writes("other.py", _edited(MAIN, {5: b"user's five\n"}))

    async def auto() -> None:
        await env.agent_writes("main.py", _edited(approved, {9: b"nine\n"}))

    await env.step(allowed)
    await env.step(auto)  # the log forgot the first step by now: it must not be looked at again
    pending = await env.service.review.pending(env.agent.session.id)
    assert [(h.file, h.after) for h in pending] == [("main.py", ["nine\n"])]


async def test_only_the_unapproved_writes_of_a_file_wait_for_review(env: Env) -> None:
    approved = _edited(MAIN, {3: b"three\n"})
    both = _edited(approved, {12: b"twelve, auto-accepted\n"})
    again = _edited(both, {4: b"four, approved\n"})

    async def during() -> None:
        await env.agent_writes("main.py", approved, APPROVED)
        await env.agent_writes("main.py", both)  # written with no dialog (Auto-accept, an "always" rule)
        await env.agent_writes("main.py", again, APPROVED)
        await env.agent_writes("other.py", _edited(MAIN, {7: b"seven\n"}))

    await env.step(during)
    sid = env.agent.session.id
    pending = await env.service.review.pending(sid)
    assert [(h.file, h.before, h.after) for h in pending] == [
        ("main.py", ["line 12\n"], ["twelve, auto-accepted\n"]),
        ("other.py", ["line 7\n"], ["seven\n"]),
    ]
    await env.service.review.undo(sid)  # undoing the unreviewed lines keeps the approved ones
    assert (env.root / "main.py").read_bytes() == _edited(MAIN, {3: b"three\n", 4: b"four, approved\n"})
    assert (env.root / "other.py").read_bytes() == MAIN


async def test_a_step_that_ran_a_shell_command_keeps_every_changed_file(env: Env) -> None:
    if env.backend == "journal":
        pytest.skip("the edit journal sees only the workspace's writes, never a shell command's")

    async def during() -> None:
        env.service.writes.tool_ran("bash")  # what the bus's running tool part does
        env.user_writes("other.py", _edited(MAIN, {5: b"five, by sed\n"}))

    await env.step(during)
    pending = await env.service.review.pending(env.agent.session.id)
    assert [(h.file, h.after) for h in pending] == [("other.py", ["five, by sed\n"])]


async def test_a_step_the_log_does_not_know_is_reviewed_as_the_snapshots_have_it(env: Env) -> None:
    env.service.writes.limit = 10  # every write is forgotten at once

    async def during() -> None:
        env.user_writes("other.py", _edited(MAIN, {5: b"five\n"}))
        await env.agent_writes("main.py", _edited(MAIN, {3: b"three\n"}))

    await env.step(during)
    pending = await env.service.review.pending(env.agent.session.id)
    # The journal sees only the agent's writes; git sees the user's file too.
    expected = ["main.py"] if env.backend == "journal" else ["main.py", "other.py"]
    assert sorted(h.file for h in pending) == expected


def test_typing_over_the_agents_own_lines_falls_back_to_the_whole_change() -> None:
    agent = _edited(MAIN, {3: b"three\n"})
    after = _edited(MAIN, {3: b"three, retyped by the user\n"})
    assert agent_only(MAIN, after, [Write(0, "main.py", MAIN, agent)]) == MAIN
    assert agent_only(None, agent, [Write(0, "main.py", None, agent)]) is None  # a created file


def test_approved_writes_stay_in_the_base_review_compares_against() -> None:
    approved = _edited(MAIN, {3: b"three\n"})
    after = _edited(approved, {9: b"nine\n"})
    writes = [Write(0, "main.py", MAIN, approved, approved=True), Write(1, "main.py", approved, after)]
    assert agent_only(MAIN, after, writes) == approved
    assert agent_only(None, approved, [Write(0, "main.py", None, approved, approved=True)]) == approved
    # An unapproved write that cannot be told apart still falls back to the whole change.
    assert agent_only(MAIN, after, [writes[0], Write(1, "main.py", None, after)]) == MAIN


def test_the_log_forgets_recorded_steps_and_steps_without_changes(tmp_path: Path) -> None:
    log = WriteLog(tmp_path)
    log.mark("a", log.now())
    log.wrote(tmp_path / "x.py", b"1\n", b"2\n")
    log.mark("b", log.now())
    log.step("a", "b")
    step = log.writes("a", "b")
    assert step is not None and [w.after for w in step.by_file["x.py"]] == [b"2\n"]
    log.forget("a", "b")
    assert log.writes("a", "b") is None
    assert log._writes == [] and log._bytes == 0


@pytest.mark.parametrize(
    ("tool", "opaque"), [("bash", True), ("task", False), ("edit", False), ("editor_hover", False)]
)
def test_a_running_tool_on_the_bus_makes_its_step_opaque_unless_it_writes_through_the_workspace(
    tmp_path: Path, tool: str, opaque: bool
) -> None:
    bus = Bus()
    log = WriteLog(tmp_path)
    log.listen(bus)
    log.mark("a", log.now())
    running = ToolStateRunning(input={}, time=ToolTimeStart(start=0))
    part = ToolPart(id="prt_1", sessionID="ses_1", messageID="msg_1", callID="c1", tool=tool, state=running)
    bus.publish(PartUpdated(part=part))
    log.mark("b", log.now())
    log.step("a", "b")
    step = log.writes("a", "b")
    assert step is not None and step.opaque is opaque


def test_a_step_reads_only_its_own_sessions_writes_and_tools(tmp_path: Path) -> None:
    """A parent's step and a background sub-agent's overlap: each sees its own writes, and only the
    session that ran a shell command has an opaque step (a write of no known session is anyone's)."""
    bus = Bus()
    log = WriteLog(tmp_path)
    log.listen(bus)
    log.mark("p0", log.now(), "ses_parent")
    log.mark("c0", log.now(), "ses_child")
    log.wrote(tmp_path / "parent.py", b"1\n", b"2\n", session="ses_parent")
    log.wrote(tmp_path / "child.py", b"1\n", b"2\n", session="ses_child")
    log.wrote(tmp_path / "anyone.py", None, b"x\n")
    running = ToolStateRunning(input={}, time=ToolTimeStart(start=0))
    part = ToolPart(
        id="prt_1", sessionID="ses_child", messageID="msg_1", callID="c1", tool="bash", state=running
    )
    bus.publish(PartUpdated(part=part))
    # Both sessions' snapshots of the same files may share a hash: marks are per session.
    log.mark("same", log.now(), "ses_parent")
    log.mark("same", log.now(), "ses_child")
    log.step("p0", "same", "ses_parent")
    log.step("c0", "same", "ses_child")
    parent, child = log.writes("p0", "same", "ses_parent"), log.writes("c0", "same", "ses_child")
    assert parent is not None and sorted(parent.by_file) == ["anyone.py", "parent.py"] and not parent.opaque
    assert child is not None and sorted(child.by_file) == ["anyone.py", "child.py"] and child.opaque
    assert log.writes("p0", "same", "ses_child") is None  # not a step of that session


def test_a_finished_step_keeps_the_writes_of_another_sessions_running_step(tmp_path: Path) -> None:
    """A foreground sub-agent's steps start and end inside its parent's step: recording one must not
    drop the parent's writes or start mark; once the parent is idle, nothing is kept for it."""
    bus = Bus()
    log = WriteLog(tmp_path)
    log.listen(bus)
    log.mark("p0", log.now(), "ses_parent")
    log.wrote(tmp_path / "parent.py", b"1\n", b"2\n", session="ses_parent")
    log.mark("c0", log.now(), "ses_child")
    log.wrote(tmp_path / "child.py", b"1\n", b"2\n", session="ses_child")
    log.mark("c1", log.now(), "ses_child")
    log.step("c0", "c1", "ses_child")
    log.forget("c0", "c1", "ses_child")
    bus.publish(SessionIdle(sessionID="ses_child"))
    log.mark("p1", log.now(), "ses_parent")
    log.step("p0", "p1", "ses_parent")
    parent = log.writes("p0", "p1", "ses_parent")
    assert parent is not None and list(parent.by_file) == ["parent.py"]
    log.forget("p0", "p1", "ses_parent")
    log.wrote(tmp_path / "later.py", None, b"x\n", session="ses_other")
    log.forget("p1", "p1", "ses_parent")  # p1 may start the parent's next step: its writes stay
    assert [w.path for w in log._writes] == ["later.py"]
    bus.publish(SessionIdle(sessionID="ses_parent"))
    log.forget("p1", "p1", "ses_parent")
    assert log._writes == [] and log._bytes == 0
