"""Worktree sessions from an ACP client (``session/new`` with ``_meta.agentls.worktree``), driven by
the official SDK's client against the real ``agentls acp``, real git and the fake model: two sessions
edit the same file at once, each in its own worktree, the user's checkout untouched; the worktree is
named back in ``_meta``; bad names are refused with nothing made; a session loaded with the checkout's
``cwd`` goes on in its worktree; the branches merge back with ``agentls worktrees`` (the second's
conflict reported)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from core.worktrees import service
from demo.fake_script import Turn
from tests.acp.conftest import Acp

ORIGINAL = "def add(a, b):\n    return a - b\n"


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(acp: Acp) -> Path:
    root = acp.project
    (root / "calc.py").write_text(ORIGINAL)
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "git", "config", "user.email", "u@example.com")
    sh(root, "git", "config", "user.name", "U")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "start")
    (root / "notes.txt").write_text("the user's own, uncommitted\n")
    return root


def fix(new: str) -> list[Turn]:
    edit = {"filePath": "calc.py", "oldString": "return a - b", "newString": new}
    return [Turn.tool_call("edit", edit), Turn.text("Fixed.")]


async def test_two_worktree_sessions_edit_the_same_file_and_leave_the_checkout_alone(
    acp: Acp, repo: Path
) -> None:
    acp.model.script_for("task one", *fix("return a + b"))
    acp.model.script_for("task two", *fix("return b + a"))
    bad = ["one", "-dash", "a..b"]
    run = await acp.run("worktrees", PERMISSION_CHOICE="allow_once", BAD_NAMES=json.dumps(bad))
    assert run.failure is None, run.failure
    one, two = run.results["one"], run.results["two"]
    where = {}
    for name, session in (("one", one), ("two", two)):
        worktree = session["_meta"]["agentls"]["worktree"]
        assert worktree["name"] == name and worktree["branch"] == f"agentls/{name}"
        where[name] = Path(worktree["path"])
    assert run.results["prompts"] == [{"stopReason": "end_turn"}] * 2
    assert (where["one"] / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (where["two"] / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert (repo / "calc.py").read_text() == ORIGINAL
    assert (repo / "notes.txt").read_text() == "the user's own, uncommitted\n"
    # The client wrote the worktrees' files (its fs/write_text_file), never the checkout's.
    written = {e["params"]["path"] for e in run.log if e["kind"] == "write"}
    assert written == {str(where["one"] / "calc.py"), str(where["two"] / "calc.py")}
    # Refused with the reason, nothing made.
    refused = run.results["refused"]
    assert [r["error"]["code"] for r in refused] == [-32602] * 3
    assert "exists already" in refused[0]["error"]["message"]
    assert "not a usable worktree name" in refused[1]["error"]["message"]
    assert "does not make a valid git branch name" in refused[2]["error"]["message"]
    branches = sh(repo, "git", "branch", "--format=%(refname:short)").split()
    assert sorted(branches) == ["agentls/one", "agentls/two", "main"]
    # Listed with the project's sessions, each in its worktree's folder.
    listed = {s["sessionId"]: s["cwd"] for s in run.results["list"]["sessions"]}
    assert listed == {one["sessionId"]: str(where["one"]), two["sessionId"]: str(where["two"])}

    # Loaded with the checkout's cwd, the session goes on in its worktree.
    acp.model.script_for(
        "task one", Turn.tool_call("bash", {"command": "pwd > where.txt"}), Turn.text("Done.")
    )
    again = await acp.run("load", SESSION_ID=one["sessionId"], PROMPT="where are you")
    assert again.failure is None, again.failure
    assert (where["one"] / "where.txt").read_text().strip() == str(where["one"])
    assert not (repo / "where.txt").exists()

    # Both merge back; the second's conflict is reported with the file, nothing lost.
    merged = service.merge(service.find(repo, "one", acp.data), "squash")
    assert merged.outcome == "merged" and merged.files == ["calc.py", "where.txt"]
    conflict = service.merge(service.find(repo, "two", acp.data))
    assert conflict.outcome == "conflict" and conflict.files == ["calc.py"]
    assert (where["two"] / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert "<<<<<<<" in (repo / "calc.py").read_text()


async def test_a_worktree_outside_git_is_refused_with_the_reason(acp: Acp) -> None:
    run = await acp.run("worktrees", BAD_NAMES="[]")
    assert run.failure is not None
    assert run.failure["code"] == -32602 and "not in a git repository" in run.failure["message"]
    assert not (acp.data / "worktrees").exists()
