"""Revert, unrevert and cleanup on both backends (git store and edit journal), with a real store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.errors import BusyError
from core.snapshot.factory import SnapshotSetup, open_snapshots
from core.snapshot.journal import EditJournal
from core.snapshot.revert import Reverter
from core.snapshot.store import SnapshotStore
from core.storage.store import Store
from core.workspace import DiskWorkspace

from .harness import Agent, StoreSessions, tree, writes


@dataclass
class Env:
    root: Path
    setup: SnapshotSetup
    agent: Agent
    sessions: StoreSessions
    reverter: Reverter
    busy: set[str]


@pytest.fixture(params=["git", "journal"])
async def env(request: pytest.FixtureRequest, project: Path, data_dir: Path) -> AsyncIterator[Env]:
    (project / "deleted.txt").write_text("the agent deletes me\n")
    setup = open_snapshots(
        data_dir, "prj_revert", project, DiskWorkspace(project), use_git=request.param == "git"
    )
    expected = SnapshotStore if request.param == "git" else EditJournal
    assert isinstance(setup.snapshots, expected)
    store = await Store.open(data_dir / "agentls.db")
    sessions = StoreSessions(store)
    busy: set[str] = set()
    agent = await Agent.start(store, setup.snapshots, setup.workspace, project)
    reverter = Reverter(sessions, setup.snapshots, setup.workspace, lambda sid: sid in busy, worktree=project)
    try:
        yield Env(project, setup, agent, sessions, reverter, busy)
    finally:
        await store.close()


def _all_kinds(root: Path) -> tuple[dict[str, bytes | None], dict[str, bytes | None]]:
    first = {
        "src/main.py": b"print('changed by the agent')\n",
        "crlf.txt": b"line one\r\nline 2 changed\r\nline three\r\n",
        "image.bin": bytes(reversed(range(256))) * 3,
        "created.txt": b"made by the agent\n",
    }
    old = (root / "old_name.txt").read_bytes()
    second = {"deleted.txt": None, "new_name.txt": old, "old_name.txt": None}
    return first, second


async def test_revert_and_unrevert_round_trip(env: Env) -> None:
    first_user = await env.agent.user()
    await env.agent.step(await env.agent.reply(first_user), writes(env.root, {}))
    before = tree(env.root)
    user = await env.agent.user()
    reply = await env.agent.reply(user)
    one, two = _all_kinds(env.root)
    await env.agent.step(reply, writes(env.root, one))
    await env.agent.step(reply, writes(env.root, two))
    after = tree(env.root)
    assert after != before

    result = await env.reverter.revert(env.agent.session.id, user.id)
    assert tree(env.root) == before  # byte for byte, CRLF and binary included
    assert sorted(result.removed) == ["created.txt", "new_name.txt"]
    assert sorted(result.restored) == ["crlf.txt", "deleted.txt", "image.bin", "old_name.txt", "src/main.py"]
    assert result.kept == [] and result.warnings == []
    session = await env.sessions.get(env.agent.session.id)
    assert session.revert is not None and session.revert.messageID == user.id
    assert session.revert.diff and "-print('changed by the agent')" in session.revert.diff
    assert len(await env.sessions.messages(session.id)) == 4  # the messages stay until cleanup

    undo = await env.reverter.unrevert(env.agent.session.id)
    assert tree(env.root) == after
    assert undo.warnings == []
    assert (await env.sessions.get(session.id)).revert is None


async def test_user_edit_after_agent_survives_with_warning(env: Env) -> None:
    user = await env.agent.user()
    reply = await env.agent.reply(user)
    await env.agent.step(
        reply,
        writes(
            env.root, {"src/main.py": b"agent\n", "created.txt": b"agent made\n", "crlf.txt": b"agent\r\n"}
        ),
    )
    (env.root / "src" / "main.py").write_bytes(b"agent\nplus the user's line\n")
    (env.root / "created.txt").write_bytes(b"agent made\nand the user kept working on it\n")

    result = await env.reverter.revert(env.agent.session.id, user.id)
    assert (env.root / "src" / "main.py").read_bytes() == b"agent\nplus the user's line\n"
    assert (env.root / "created.txt").read_bytes() == b"agent made\nand the user kept working on it\n"
    assert sorted(result.kept) == ["created.txt", "src/main.py"]
    assert any("created.txt" in w and "created by the agent" in w for w in result.warnings)
    assert any("src/main.py" in w for w in result.warnings)
    assert result.restored == ["crlf.txt"]
    assert (env.root / "crlf.txt").read_bytes() == b"line one\r\nline two\r\n"

    # Unrevert puts back only what the revert changed; the user's files are left alone.
    await env.reverter.unrevert(env.agent.session.id)
    assert (env.root / "crlf.txt").read_bytes() == b"agent\r\n"
    assert (env.root / "src" / "main.py").read_bytes() == b"agent\nplus the user's line\n"


async def test_created_file_unchanged_is_removed(env: Env) -> None:
    user = await env.agent.user()
    await env.agent.step(await env.agent.reply(user), writes(env.root, {"made/by/agent.txt": b"x\n"}))
    result = await env.reverter.revert(env.agent.session.id, user.id)
    assert result.removed == ["made/by/agent.txt"]
    assert not (env.root / "made" / "by" / "agent.txt").exists()


async def test_busy_session_refuses(env: Env) -> None:
    user = await env.agent.user()
    await env.agent.step(await env.agent.reply(user), writes(env.root, {"src/main.py": b"agent\n"}))
    env.busy.add(env.agent.session.id)
    with pytest.raises(BusyError):
        await env.reverter.revert(env.agent.session.id, user.id)
    with pytest.raises(BusyError):
        await env.reverter.unrevert(env.agent.session.id)
    assert (env.root / "src" / "main.py").read_bytes() == b"agent\n"
    assert (await env.sessions.get(env.agent.session.id)).revert is None


async def test_revert_to_part_keeps_earlier_steps(env: Env) -> None:
    user = await env.agent.user()
    reply = await env.agent.reply(user)
    await env.agent.step(reply, writes(env.root, {"src/main.py": b"step one\n"}))
    second = await env.agent.step(reply, writes(env.root, {"src/main.py": b"step two\n", "b.txt": b"b\n"}))
    result = await env.reverter.revert(env.agent.session.id, reply.id, second.id)
    assert (env.root / "src" / "main.py").read_bytes() == b"step one\n"
    assert not (env.root / "b.txt").exists()
    assert result.restored == ["src/main.py"] and result.removed == ["b.txt"]

    removed = await env.reverter.cleanup(env.agent.session.id)
    assert removed == []  # the reply itself stays, only its later parts go
    messages = await env.sessions.messages(env.agent.session.id)
    assert [m.info.id for m in messages] == [user.id, reply.id]
    assert second.id not in {p.id for p in messages[1].parts}
    assert len(messages[1].parts) == 3  # step-start, step-finish, patch of step one
    assert (await env.sessions.get(env.agent.session.id)).revert is None


async def test_cleanup_removes_reverted_messages(env: Env) -> None:
    keep = await env.agent.user()
    await env.agent.step(await env.agent.reply(keep), writes(env.root, {"a.txt": b"a\n"}))
    user = await env.agent.user()
    await env.agent.step(await env.agent.reply(user), writes(env.root, {"b.txt": b"b\n"}))
    await env.reverter.revert(env.agent.session.id, user.id)
    assert (env.root / "a.txt").exists() and not (env.root / "b.txt").exists()
    removed = await env.reverter.cleanup(env.agent.session.id)
    assert len(removed) == 2 and removed[0] == user.id
    messages = await env.sessions.messages(env.agent.session.id)
    assert messages[0].info.id == keep.id and len(messages) == 2
    assert await env.reverter.cleanup(env.agent.session.id) == []  # nothing pending any more


async def test_files_the_agent_did_not_touch_are_left_alone(env: Env) -> None:
    user = await env.agent.user()
    await env.agent.step(await env.agent.reply(user), writes(env.root, {"src/main.py": b"agent\n"}))
    (env.root / "crlf.txt").write_bytes(b"the user's own change\n")
    (env.root / "user_new.txt").write_bytes(b"mine\n")
    await env.reverter.revert(env.agent.session.id, user.id)
    assert (env.root / "crlf.txt").read_bytes() == b"the user's own change\n"
    assert (env.root / "user_new.txt").read_bytes() == b"mine\n"
    assert (env.root / "src" / "main.py").read_bytes() == b"print('hello')\n"


async def test_edit_after_revert_survives_unrevert(env: Env) -> None:
    user = await env.agent.user()
    await env.agent.step(await env.agent.reply(user), writes(env.root, {"src/main.py": b"agent\n"}))
    await env.reverter.revert(env.agent.session.id, user.id)
    (env.root / "src" / "main.py").write_bytes(b"edited after the revert\n")
    result = await env.reverter.unrevert(env.agent.session.id)
    assert result.kept == ["src/main.py"] and "edited since the revert" in result.warnings[0]
    assert (env.root / "src" / "main.py").read_bytes() == b"edited after the revert\n"


async def test_revert_twice_then_unrevert_restores_latest_state(env: Env) -> None:
    first = await env.agent.user()
    await env.agent.step(await env.agent.reply(first), writes(env.root, {"a.txt": b"1\n"}))
    second = await env.agent.user()
    await env.agent.step(await env.agent.reply(second), writes(env.root, {"a.txt": b"2\n", "b.txt": b"b\n"}))
    latest = tree(env.root)
    await env.reverter.revert(env.agent.session.id, second.id)
    assert (env.root / "a.txt").read_bytes() == b"1\n"
    await env.reverter.revert(env.agent.session.id, first.id)
    assert not (env.root / "a.txt").exists() and not (env.root / "b.txt").exists()
    await env.reverter.unrevert(env.agent.session.id)
    assert tree(env.root) == latest


async def test_unknown_message_is_not_found(env: Env) -> None:
    from core.errors import NotFoundError

    with pytest.raises(NotFoundError):
        await env.reverter.revert(env.agent.session.id, "msg_unknown")
