"""Project ids: stable across restarts, clones and symlinked paths; git root commit or canonical path."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.errors import StorageError
from core.storage import Store
from core.storage.project import path_project_id
from tests.unit.storage import factories as f

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=30)
    return done.stdout.strip()


def _repo_with_commit(path: Path) -> str:
    path.mkdir()
    _git(path, "init", "-q")
    (path / "a.txt").write_text("a\n")
    _git(path, "add", "a.txt")
    _git(path, "commit", "-q", "-m", "first")
    return _git(path, "rev-parse", "HEAD")


async def test_git_project_id_is_its_root_commit_and_survives_restart(tmp_path: Path) -> None:
    root = _repo_with_commit(tmp_path / "repo")
    (tmp_path / "repo" / "b.txt").write_text("b\n")
    _git(tmp_path / "repo", "add", "b.txt")
    _git(tmp_path / "repo", "commit", "-q", "-m", "second")  # a later commit changes nothing

    db = tmp_path / "agentls.db"
    async with await Store.open(db) as store:
        first = await store.ensure_project(tmp_path / "repo")
    async with await Store.open(db) as store:
        again = await store.ensure_project(tmp_path / "repo")
    assert first.id == again.id == f"prj_{root}"
    assert first.vcs == "git"
    assert first.time_created == again.time_created


async def test_a_clone_elsewhere_is_the_same_project(tmp_path: Path, store: Store) -> None:
    _repo_with_commit(tmp_path / "repo")
    _git(tmp_path, "clone", "-q", str(tmp_path / "repo"), str(tmp_path / "clone"))
    original = await store.ensure_project(tmp_path / "repo")
    clone = await store.ensure_project(tmp_path / "clone")
    assert clone.id == original.id
    assert clone.worktree == str((tmp_path / "clone").resolve())  # the latest worktree is remembered


async def test_plain_directory_uses_its_canonical_path(tmp_path: Path, store: Store) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    link = tmp_path / "link"
    link.symlink_to(plain)
    direct = await store.ensure_project(plain)
    through_link = await store.ensure_project(link)
    assert direct.id == through_link.id == path_project_id(plain)
    assert direct.vcs is None
    other = tmp_path / "other"
    other.mkdir()
    assert (await store.ensure_project(other)).id != direct.id


async def test_repo_without_commits_is_identified_by_path(tmp_path: Path, store: Store) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, "init", "-q")
    project = await store.ensure_project(empty)
    assert project.id == path_project_id(empty)
    assert project.vcs is None


async def test_sessions_follow_the_project_when_the_first_commit_lands(tmp_path: Path, store: Store) -> None:
    repo = tmp_path / "later"
    repo.mkdir()
    _git(repo, "init", "-q")
    before = await store.ensure_project(repo)
    s = f.session(before.id)
    await store.insert_session(s)
    await store.add_approval(before.id, "bash", "ls*")

    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "first")
    after = await store.ensure_project(repo)

    assert after.id != before.id and after.vcs == "git"
    assert [x.id for x in await store.list_sessions(after.id)] == [s.id]
    assert (await store.get_session(s.id)).projectID == after.id
    assert [a.pattern for a in await store.list_approvals(after.id)] == ["ls*"]


async def test_a_closed_store_says_so_instead_of_a_bare_connection_error(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "agentls.db")
    project = await store.ensure_project(tmp_path)
    await store.close()
    await store.close()  # twice is harmless
    with pytest.raises(StorageError, match="closed: agentls is shutting down"):
        await store.list_sessions(project.id)
    with pytest.raises(StorageError, match="closed: agentls is shutting down"):
        await store.ensure_project(tmp_path)
