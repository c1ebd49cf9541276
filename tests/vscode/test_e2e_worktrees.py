"""Two worktree sessions started from a real VS Code (code-server + Chromium, the packaged extension,
the real ``agentls serve`` and the scripted fake model) edit the same file at once: the user's checkout
and each other's worktree are untouched; the first branch merges, the second conflicts and the
conflict is reported with its file while the worktree keeps its edit; the Worktrees pick lists their
state, shows the changes, opens a worktree in a new window and discards one after a modal question.
Screenshots go to ``tests/vscode/screenshots/worktrees``.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.phases import model_server
from tests.vscode.scenario import Driven, drive

CALC = "a = 1\nb = 2\nc = 3\n"

# Two sessions, two merges, a second window: longer than one scenario's default on a busy machine.
pytestmark = pytest.mark.timeout(900)


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, text=True).stdout


@dataclass
class Run(Driven):
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-worktrees")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    git(folder, "init", "-q", "-b", "main")
    # The repository's own identity: the server commits in it (merges) whatever the machine's config.
    git(folder, "config", "user.name", "u")
    git(folder, "config", "user.email", "u@x")
    git(folder, "add", "calc.py")
    git(folder, "commit", "-q", "-m", "start")
    release = asyncio.Event()
    with model_server() as (model, loop), FakeModelServer.threaded() as titles:
        # Alpha's edit waits until beta's turn has made its own: the two sessions run at once.
        model.script_for(
            "ALPHA",
            Turn.tool_call(
                "edit", {"filePath": "calc.py", "oldString": "b = 2\n", "newString": "b = 20\n"}
            ).slow_first_byte(release),
            Turn.text("Alpha done."),
        )
        model.script_for(
            "BETA",
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "b = 2\n", "newString": "b = 30\n"}),
            Turn.text("Beta done."),
        )
        titles.script(*[Turn.text("Set b") for _ in range(6)])
        config = fake_model_config(model, titles)
        edits = {"agentls.permission": {"edit": "allow"}}
        driven = drive(
            "e2e_worktrees.mjs",
            "worktrees",
            tmp,
            folder,
            config,
            settings=edits,
            signals={"release-alpha": lambda: loop.call_soon_threadsafe(release.set)},
        )
        yield Run(driven.result, driven.output, folder)


@pytest.fixture(scope="module")
def outside_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-worktrees-nogit")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        config = fake_model_config(model, titles)
        driven = drive("e2e_worktrees.mjs", "worktrees-nogit", tmp, folder, config, args={"mode": "nogit"})
        yield Run(driven.result, driven.output, folder)


def test_outside_git_every_way_in_says_why_and_makes_nothing(outside_git: Run) -> None:
    r = outside_git.phase("unavailable")
    for way in ("palette", "worktrees", "chatButton"):
        assert "not available here" in r[way] and "not in a git repository" in r[way], (way, r)
    assert r["inputBox"] is None and r["tag"] is None, r
    assert not (outside_git.folder / ".git").exists()


def test_each_session_is_labelled_with_its_worktree(run: Run) -> None:
    alpha = run.phase("alpha-from-palette")["tag"]
    beta = run.phase("beta-from-chat-button")["tag"]
    assert alpha["text"] == "worktree: alpha" and "agentls/alpha" in alpha["title"], alpha
    assert beta["text"] == "worktree: beta" and "agentls/beta" in beta["title"], beta
    assert alpha["path"] != beta["path"] and not alpha["path"].startswith(str(run.folder)), (alpha, beta)
    rows = run.phase("isolated")["rows"]
    assert sorted(r["tag"] for r in rows if r["tag"]) == ["worktree: alpha", "worktree: beta"], rows


def test_a_taken_name_is_refused_as_it_is_typed(run: Run) -> None:
    assert "exists already" in run.phase("beta-from-chat-button")["taken"]


def test_the_checkout_and_each_others_worktree_are_untouched(run: Run) -> None:
    r = run.phase("beta-from-chat-button")
    assert "b = 30" in r["betaFile"] and r["alphaBeforeRelease"] == CALC, r
    r = run.phase("isolated")
    assert r["checkoutDisk"] == CALC, r
    editor = r["checkoutEditor"]
    assert "b = 2" in editor and "b = 20" not in editor and "b = 30" not in editor, r
    assert "b = 20" in r["alphaFile"] and "b = 30" not in r["alphaFile"], r
    assert "b = 30" in r["betaFile"] and "b = 20" not in r["betaFile"], r


def test_the_edited_file_opens_from_the_worktree(run: Run) -> None:
    r = run.phase("isolated")
    assert "error" not in r["reviewTab"], r["reviewTab"]
    assert "b = 20" in r["reviewEditor"], r


def test_the_worktrees_pick_lists_each_with_its_state_and_actions(run: Run) -> None:
    r = run.phase("worktrees-list")
    assert any("alpha" in row and "1 file changed" in row for row in r["rows"]), r
    assert any("beta" in row and "1 file changed" in row for row in r["rows"]), r
    actions = [a.split(",")[0] for a in r["actions"]][:4]
    assert actions == ["Show Changes", "Merge…", "Open in New Window", "Discard…"], r
    assert r["changesTab"], r


def test_the_first_branch_merges_into_the_checkout(run: Run) -> None:
    r = run.phase("merge-alpha")
    assert "agentls/alpha merged into main" in r["notification"], r
    assert "b = 20" in r["checkoutDisk"], r
    assert any("alpha" in row and "merged" in row for row in r["rows"]), r


def test_the_second_conflicts_with_its_file_named_and_nothing_lost(run: Run) -> None:
    r = run.phase("merge-beta-conflict")
    assert "calc.py" in r["notification"] and "git merge --abort" in r["notification"], r
    assert "b = 30" in r["betaFile"], r
    assert "<<<<<<<" in r["conflictEditor"] and "b = 30" in r["conflictEditor"], r
    # The branch still holds beta's edit, committed: the conflict lost nothing.
    assert "b = 30" in git(run.folder, "show", "agentls/beta:calc.py")
    assert git(run.folder, "diff", "--name-only", "--diff-filter=U").split() == ["calc.py"]


def test_open_in_new_window_opens_the_worktree_folder(run: Run) -> None:
    r = run.phase("open-in-new-window")
    worktree = run.phase("discard-alpha")["worktrees"]["beta"]
    assert "folder=" in r["url"] and Path(worktree).name in r["url"], r


def test_discard_asks_first_then_removes_the_worktree_and_its_branch(run: Run) -> None:
    r = run.phase("discard-alpha")
    assert r["dialog"]["message"] == "Discard the worktree alpha?" and "Discard" in r["dialog"]["buttons"], r
    assert r["alphaExists"] is False, r
    assert "agentls/alpha" not in git(run.folder, "branch", "--list")
