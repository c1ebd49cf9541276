"""A worktree session from `agentls serve` attached to the host: the checkout's agent is the host's,
the worktree's runs in the serve process (docs/protocol.md, "Worktree sessions"); the session is
listed through the host with its worktree, its turn edits the worktree only, and it merges back."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import HostProcess
from .test_serve_attached import edits_allowed, host_allowing_edits, serves  # noqa: F401  (fixtures)

ORIGINAL = "def add(a, b):\n    return a - b\n"


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


async def test_a_worktree_session_from_an_attached_serve_edits_its_worktree_and_merges_back(
    host_allowing_edits: HostProcess,  # noqa: F811
    project: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    for args in (
        ("git", "init", "-q", "-b", "main"),
        ("git", "config", "user.email", "u@example.com"),
        ("git", "config", "user.name", "U"),
        ("git", "add", "-A"),
        ("git", "commit", "-qm", "start"),
    ):
        sh(project, *args)
    model.script(
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    serve = await serves()
    session = await serve.call("agent/session/create", {"worktree": "attached"})
    folder = Path(session["worktree"]["path"])
    parts = [{"type": "text", "text": "fix it"}]
    await serve.call("agent/session/prompt", {"sessionID": session["id"], "parts": parts})
    assert await asyncio.to_thread((folder / "calc.py").read_text) == "def add(a, b):\n    return a + b\n"
    assert await asyncio.to_thread((project / "calc.py").read_text) == ORIGINAL
    # Listed through the host's agent (the checkout's), with its worktree.
    listed = (await serve.call("agent/session/list", {}))["sessions"]
    assert [s["worktree"]["name"] for s in listed if s["id"] == session["id"]] == ["attached"]
    merged = await serve.call("agent/worktree/merge", {"name": "attached", "how": "ff-only"})
    assert merged["outcome"] == "merged", merged
    assert await asyncio.to_thread((project / "calc.py").read_text) == "def add(a, b):\n    return a + b\n"
