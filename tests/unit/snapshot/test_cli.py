"""`agentls snapshots du|gc` and `agentls diff` as real subprocesses on a real store and project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.snapshot.factory import open_snapshots
from core.storage.store import Store
from core.workspace import DiskWorkspace

from .harness import Agent, writes

AGENTLS = Path(sys.executable).parent / "agentls"


def run_cli(tmp_path: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLS_", "XDG_", "GIT_"))}
    env |= {
        "HOME": str(tmp_path / "home"),
        "AGENTLS_DATA_DIR": str(data_dir),
        "AGENTLS_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run([str(AGENTLS), *args], env=env, capture_output=True, text=True, timeout=120)


def _resolved(path: Path) -> str:
    return str(path.resolve())


@dataclass
class Recorded:
    session_id: str
    first_user: str
    second_user: str


async def _record(project: Path, data_dir: Path, use_git: bool) -> Recorded:
    async with await Store.open(data_dir / "agentls.db") as store:
        project_id = (await store.ensure_project(project)).id
        setup = open_snapshots(data_dir, project_id, project, DiskWorkspace(project), use_git=use_git)
        agent = await Agent.start(store, setup.snapshots, setup.workspace, project)
        first = await agent.user()
        await agent.step(await agent.reply(first), writes(project, {"a.txt": b"alpha\n"}))
        second = await agent.user()
        await agent.step(
            await agent.reply(second), writes(project, {"src/main.py": b"print('bye')\n", "crlf.txt": None})
        )
        return Recorded(agent.session.id, first.id, second.id)


@pytest.mark.parametrize("use_git", [True, False], ids=["git", "journal"])
async def test_diff_prints_unified_diffs(
    tmp_path: Path, project: Path, data_dir: Path, use_git: bool
) -> None:
    rec = await _record(project, data_dir, use_git)
    result = run_cli(tmp_path, data_dir, "diff", rec.session_id)
    assert result.returncode == 0, result.stderr
    assert "+++ b/a.txt\n" in result.stdout and "+alpha\n" in result.stdout
    assert "-print('hello')\n+print('bye')\n" in result.stdout
    assert "--- a/crlf.txt\n+++ /dev/null\n" in result.stdout
    assert "3 files changed, +2 -3" in result.stderr

    turn = run_cli(tmp_path, data_dir, "diff", rec.session_id, rec.first_user)
    assert turn.returncode == 0, turn.stderr
    assert "a.txt" in turn.stdout and "main.py" not in turn.stdout


def test_diff_of_unknown_session_fails(tmp_path: Path, data_dir: Path) -> None:
    result = run_cli(tmp_path, data_dir, "diff", "ses_nope")
    assert result.returncode != 0 and "no agentls data" in result.stderr


async def test_diff_unknown_session_in_existing_store(tmp_path: Path, project: Path, data_dir: Path) -> None:
    await _record(project, data_dir, True)
    result = run_cli(tmp_path, data_dir, "diff", "ses_nope")
    assert result.returncode == 1 and "not found" in result.stderr


async def test_du_and_gc(tmp_path: Path, project: Path, data_dir: Path) -> None:
    await _record(project, data_dir, True)
    listed = run_cli(tmp_path, data_dir, "snapshots", "du", "--json")
    assert listed.returncode == 0, listed.stderr
    report = json.loads(listed.stdout)
    (store,) = report["stores"]
    assert store["kind"] == "git" and store["worktree"] == _resolved(project)
    snap_dir = data_dir / "snapshot" / store["projectID"]
    on_disk = sum(p.lstat().st_size for p in snap_dir.rglob("*") if p.is_file())
    assert store["bytes"] == on_disk == report["total"] > 0

    text = run_cli(tmp_path, data_dir, "snapshots", "du")
    assert text.returncode == 0 and store["projectID"] in text.stdout and "total" in text.stdout

    cleaned = run_cli(tmp_path, data_dir, "snapshots", "gc", "--keep-days", "0")
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"{store['projectID']}: dropped 2 snapshots, kept 1" in cleaned.stdout
