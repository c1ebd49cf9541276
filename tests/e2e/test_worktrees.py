"""Worktree sessions as a user runs them: `agentls run --worktree` (a real subprocess, real git, the
fake model) edits in its own worktree while the user's checkout and its uncommitted changes stay
untouched; two sessions edit the same file at once; `agentls worktrees` lists, diffs, merges (a
conflict reported with its files, nothing lost), discards and cleans; bad names and folders get
clear errors with nothing made half-way."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(project: Path) -> Path:
    sh(project, "git", "init", "-q", "-b", "main")
    sh(project, "git", "config", "user.email", "u@example.com")
    sh(project, "git", "config", "user.name", "U")
    sh(project, "git", "add", "-A")
    sh(project, "git", "commit", "-qm", "start")
    return project


def env_for(tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer) -> dict[str, str]:
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, permission="allow"))
    env.update(
        GIT_AUTHOR_NAME="U",
        GIT_AUTHOR_EMAIL="u@example.com",
        GIT_COMMITTER_NAME="U",
        GIT_COMMITTER_EMAIL="u@example.com",
    )
    return env


def fix(path: str, old: str, new: str) -> Turn:
    return Turn.tool_call("edit", {"filePath": path, "oldString": old, "newString": new})


async def start(
    name: str, new: str, repo: Path, tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> Path:
    """A worktree session that changes calc.py's `return a - b` to ``new``; its folder."""
    env = env_for(tmp_path, model, title_model)
    # The model edits the worktree's copy: the agent's folder is the worktree (its cwd, relative paths).
    model.script(fix("calc.py", "return a - b", new), Turn.text("Fixed."))
    code, _, err = await agentls("run", "--worktree", name, "fix add", cwd=repo, env=env)
    assert code == 0, err
    assert f"working in the worktree {name} (" in err
    code, out, err = await agentls("worktrees", "path", name, cwd=repo, env=env)
    assert code == 0, err
    return Path(out.strip())


async def test_a_worktree_session_leaves_the_checkout_and_its_uncommitted_changes_alone(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    (repo / "notes.txt").write_text("the user's own, uncommitted\n")
    folder = await start("fix-add", "return a + b", repo, tmp_path, model, title_model)
    assert (folder / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert (repo / "notes.txt").read_text() == "the user's own, uncommitted\n"
    assert not (folder / "notes.txt").exists()
    env = env_for(tmp_path, model, title_model)
    code, out, _ = await agentls("worktrees", cwd=repo, env=env)
    assert (
        code == 0
        and out.startswith("fix-add\tagentls/fix-add\t")
        and "1 file(s) changed, 1 uncommitted" in out
    )
    code, out, _ = await agentls("worktrees", "diff", "fix-add", cwd=repo, env=env)
    assert code == 0 and "-    return a - b\n+    return a + b\n" in out
    code, _, err = await agentls("worktrees", "merge", "fix-add", cwd=repo, env=env)
    assert code == 0, err
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (repo / "notes.txt").read_text() == "the user's own, uncommitted\n"
    assert "Merge agentls/fix-add" in sh(repo, "git", "log", "-1", "--format=%s")
    code, _, err = await agentls("worktrees", "clean", "--yes", cwd=repo, env=env)
    assert code == 0 and "removed fix-add" in err
    assert not folder.exists() and "agentls/fix-add" not in sh(repo, "git", "branch")


async def test_two_sessions_edit_the_same_file_and_the_second_merge_reports_its_conflict(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    one = await start("one", "return a + b", repo, tmp_path, model, title_model)
    two = await start("two", "return b + a", repo, tmp_path, model, title_model)
    assert "a + b" in (one / "calc.py").read_text() and "b + a" in (two / "calc.py").read_text()
    env = env_for(tmp_path, model, title_model)
    assert (await agentls("worktrees", "merge", "one", "--squash", cwd=repo, env=env))[0] == 0
    code, out, err = await agentls("worktrees", "merge", "two", cwd=repo, env=env)
    assert code == 1 and "left conflicts in 1 file(s)" in err and "git merge --abort" in err
    assert out.strip() == "calc.py"
    assert "<<<<<<<" in (repo / "calc.py").read_text()  # left for the user, nothing lost
    assert "b + a" in (two / "calc.py").read_text()
    sh(repo, "git", "merge", "--abort")
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


async def test_a_merge_that_would_overwrite_the_user_s_changes_is_refused_and_changes_nothing(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    await start("fix", "return a + b", repo, tmp_path, model, title_model)
    (repo / "calc.py").write_text("def add(a, b):\n    return 0  # the user's own edit\n")
    env = env_for(tmp_path, model, title_model)
    code, out, err = await agentls("worktrees", "merge", "fix", cwd=repo, env=env)
    assert code == 1 and "git did not merge agentls/fix" in err and out.strip() == "calc.py"
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return 0  # the user's own edit\n"


async def test_discard_asks_and_removes_the_worktree_and_its_branch(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    folder = await start("try", "return a * b", repo, tmp_path, model, title_model)
    env = env_for(tmp_path, model, title_model)
    code, _, err = await agentls("worktrees", "discard", "try", cwd=repo, env=env)
    assert code == 1 and "not done without a terminal to ask" in err and folder.exists()
    code, _, err = await agentls("worktrees", "discard", "try", "--yes", cwd=repo, env=env)
    assert code == 0 and not folder.exists() and "agentls/try" not in sh(repo, "git", "branch")
    code, out, _ = await agentls("worktrees", cwd=repo, env=env)
    assert "no worktree sessions" in out


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("-x", "is not a usable worktree name"),
        ("a b", "is not a usable worktree name"),
        ("x" * 64, "is not a usable worktree name"),
        ("a..b", "does not make a valid git branch name"),
        ("x.lock", "does not make a valid git branch name"),
    ],
)
async def test_a_bad_name_is_refused_before_anything_is_made(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer, name: str, error: str
) -> None:
    env = env_for(tmp_path, model, title_model)
    code, _, err = await agentls("run", f"--worktree={name}", "hi", cwd=repo, env=env)
    assert code != 0 and error in err and "Traceback" not in err
    assert model.requests == [] and "agentls/" not in sh(repo, "git", "branch")
    assert not (tmp_path / "data" / "worktrees").exists() or not any(
        (tmp_path / "data" / "worktrees").rglob("*.json")
    )


async def test_a_name_in_use_and_a_folder_outside_git_are_clear_errors(
    tmp_path: Path, repo: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    await start("dup", "return a + b", repo, tmp_path, model, title_model)
    env = env_for(tmp_path, model, title_model)
    code, _, err = await agentls("run", "--worktree", "dup", "again", cwd=repo, env=env)
    assert code != 0 and "a worktree named 'dup' exists already" in err
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = await agentls("run", "--worktree", "x", "hi", cwd=plain, env=env)
    assert code != 0 and "is not in a git repository: a worktree session needs git" in err
    code, _, err = await agentls("worktrees", "merge", "nope", cwd=repo, env=env)
    assert code != 0 and "no worktree named 'nope'" in err and "there are: dup" in err
