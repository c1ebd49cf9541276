"""A worktree session from `agentls serve` attached to the host: the worktree's agent is the host's
too, as the checkout's is (docs/protocol.md, "Worktree sessions"; docs/host.md); the session is listed
through the host with its worktree, its turn edits the worktree only and goes on when the editor
closes, it merges back; when the host dies and none can be reached, the worktree's agent opens in the
serve process and the session goes on there."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.remote.place import socket_path
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.ticks import until_async

from .conftest import HostProcess
from .test_serve_attached import edits_allowed, host_allowing_edits, host_status, serves  # noqa: F401  (fixtures)

ORIGINAL = "def add(a, b):\n    return a - b\n"


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def git_repo(project: Path) -> None:
    for args in (
        ("git", "init", "-q", "-b", "main"),
        ("git", "config", "user.email", "u@example.com"),
        ("git", "config", "user.name", "U"),
        ("git", "add", "-A"),
        ("git", "commit", "-qm", "start"),
    ):
        sh(project, *args)


async def host_directories(data_dir: Path) -> list[str]:
    """The folders the host has an agent open in."""
    return [p["directory"] for p in (await host_status(data_dir))["projects"]]


async def test_a_worktree_session_from_an_attached_serve_edits_its_worktree_and_merges_back(
    host_allowing_edits: HostProcess,  # noqa: F811
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    git_repo(project)
    model.script(
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    serve = await serves()
    session = await serve.call("agent/session/create", {"worktree": "attached"})
    folder = Path(session["worktree"]["path"])
    # The worktree's agent is the host's, beside the checkout's.
    assert str(folder) in await host_directories(data_dir)
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


async def test_a_worktree_turn_goes_on_in_the_host_when_its_editor_is_killed(
    host_allowing_edits: HostProcess,  # noqa: F811
    project: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    git_repo(project)
    released = asyncio.Event()
    model.script(
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed in the worktree.", chunks=6).stall(after=2, until=released),
    )
    serve = await serves()
    session = await serve.call("agent/session/create", {"worktree": "goes-on"})
    folder = Path(session["worktree"]["path"])
    parts = [{"type": "text", "text": "fix it"}]
    prompt = asyncio.ensure_future(
        serve.call("agent/session/prompt", {"sessionID": session["id"], "parts": parts})
    )
    await serve.editor.wait_for(lambda: serve.events("message.part.delta", session["id"]), timeout=60)
    serve.kill()  # the editor that started the turn is gone
    await asyncio.gather(prompt, return_exceptions=True)  # its connection is gone
    released.set()
    watcher = await serves()  # another editor, opened later: the session's answer is there

    async def finished() -> bool:
        messages = await watcher.call("agent/session/messages", {"sessionID": session["id"]})
        texts = [p.get("text") for m in messages["messages"] for p in m["parts"] if p["type"] == "text"]
        return "Fixed in the worktree." in texts

    await until_async(finished, "the worktree's turn to finish in the host", 60)
    assert await asyncio.to_thread((folder / "calc.py").read_text) == "def add(a, b):\n    return a + b\n"


async def test_a_worktree_agent_opens_in_the_serve_process_when_no_host_can_be_reached(
    host_allowing_edits: HostProcess,  # noqa: F811
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    git_repo(project)
    serve = await serves()
    session = await serve.call("agent/session/create", {"worktree": "here"})
    folder = socket_path(data_dir).parent
    folder.chmod(0o777)  # a socket folder others can open is never used: no host can be reached
    try:
        os.kill(host_allowing_edits.pid, signal.SIGKILL)
        await serve.editor.wait_for(
            lambda: [m for m in serve.client.messages if "runs in this process now" in m.message], timeout=90
        )
        model.script(Turn.text("in this process"))
        answer = await serve.call(
            "agent/session/prompt",
            {"sessionID": session["id"], "parts": [{"type": "text", "text": "still there?"}]},
            timeout=90,
        )
        assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["in this process"]
    finally:
        folder.chmod(0o700)
