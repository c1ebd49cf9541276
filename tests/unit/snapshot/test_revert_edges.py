"""Revert edge cases: the executable bit of re-created files, and steps that ended before their patch."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core import ids
from core.config.schema import Config
from core.message.models import AssistantMessage, StepStartPart
from core.snapshot.factory import open_snapshots
from core.snapshot.revert import Reverter
from core.snapshot.store import SnapshotStore
from core.storage.store import Store
from core.workspace import DiskWorkspace
from demo.config import fake_model_config
from tests.harness import running_agent

from .harness import Agent, StoreSessions, tree, writes

Backend = tuple[Agent, Reverter, Path]


@pytest.fixture(params=["git", "journal"])
async def env(request: pytest.FixtureRequest, project: Path, data_dir: Path) -> AsyncIterator[Backend]:
    script = project / "run.sh"
    script.write_text("#!/bin/sh\necho run\n")
    script.chmod(0o755)
    setup = open_snapshots(
        data_dir, "prj_edges", project, DiskWorkspace(project), use_git=request.param == "git"
    )
    store = await Store.open(data_dir / "agentls.db")
    agent = await Agent.start(store, setup.snapshots, setup.workspace, project)
    reverter = Reverter(
        StoreSessions(store), setup.snapshots, setup.workspace, lambda _s: False, worktree=project
    )
    try:
        yield agent, reverter, project
    finally:
        await store.close()


def is_executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


async def test_a_deleted_executable_comes_back_executable(env: Backend) -> None:
    agent, reverter, root = env
    await agent.step(await agent.reply(await agent.user()), writes(root, {}))  # the baseline snapshot
    user = await agent.user()
    await agent.step(await agent.reply(user), writes(root, {"run.sh": None, "notes.txt": b"n\n"}))
    assert not (root / "run.sh").exists()
    result = await reverter.revert(agent.session.id, user.id)
    assert "run.sh" in result.restored
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho run\n"
    assert is_executable(root / "run.sh")
    assert not is_executable(root / "src" / "main.py")


async def test_a_rewritten_executable_stays_executable_after_revert(env: Backend) -> None:
    agent, reverter, root = env
    user = await agent.user()
    await agent.step(await agent.reply(user), writes(root, {"run.sh": b"#!/bin/sh\necho changed\n"}))
    os.chmod(root / "run.sh", 0o644)  # as when an editor saves the agent's text as a new file
    await reverter.revert(agent.session.id, user.id)
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho run\n" and is_executable(root / "run.sh")


async def aborted_step(
    agent: Agent, msg: AssistantMessage, root: Path, files: dict[str, bytes | None]
) -> None:
    """What the processor leaves when a step is aborted (or the process dies) mid-step: a start
    part with its snapshot, the edits, and no finish or patch part."""
    start = await agent.snapshots.track()
    await agent.store.upsert_part(
        StepStartPart(id=ids.ascending("prt"), sessionID=msg.sessionID, messageID=msg.id, snapshot=start)
    )
    await writes(root, files)(agent.workspace)


async def test_changes_of_a_step_aborted_before_its_patch_part_are_reverted(env: Backend) -> None:
    agent, reverter, root = env
    await agent.step(await agent.reply(await agent.user()), writes(root, {}))
    before = tree(root)
    user = await agent.user()
    reply = await agent.reply(user)
    await agent.step(reply, writes(root, {"src/main.py": b"print('step one')\n"}))
    await aborted_step(agent, reply, root, {"src/main.py": b"print('half done')\n", "half.txt": b"h\n"})
    result = await reverter.revert(agent.session.id, user.id)
    assert tree(root) == before
    assert sorted([*result.restored, *result.removed]) == ["half.txt", "src/main.py"]


async def test_an_aborted_step_followed_by_a_new_turn_is_reverted_up_to_that_turn(env: Backend) -> None:
    agent, reverter, root = env
    await agent.step(await agent.reply(await agent.user()), writes(root, {}))
    first = await agent.user()
    await aborted_step(agent, await agent.reply(first), root, {"crlf.txt": b"aborted\r\n"})
    second = await agent.user()
    await agent.step(await agent.reply(second), writes(root, {"crlf.txt": b"next turn\r\n"}))
    await reverter.revert(agent.session.id, second.id)
    assert (root / "crlf.txt").read_bytes() == b"aborted\r\n"
    await reverter.revert(agent.session.id, first.id)
    assert (root / "crlf.txt").read_bytes() == b"line one\r\nline two\r\n"


async def test_max_blob_bytes_is_a_config_key_that_reaches_the_store(project: Path, tmp_path: Path) -> None:
    assert Config.model_validate({}).snapshot.max_blob_bytes == 1_000_000
    config = fake_model_config(_NoServer(), _NoServer(), snapshot={"max_blob_bytes": 4096})
    async with running_agent(project, config=config, data_dir=tmp_path / "d") as harness:
        backend = harness.state.snapshots.backend
        assert isinstance(backend, SnapshotStore) and backend.max_blob_bytes == 4096


class _NoServer:
    """No model is called: the app only has to open."""

    base_url = "http://127.0.0.1:9"
    openai_base = "http://127.0.0.1:9/v1"
