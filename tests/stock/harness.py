"""What the stock-editor tests share: a project, the fake models, the server command, the checks.

The editors (real Neovim 0.11, real Emacs + eglot) start the real ``agentls serve`` themselves from
their stock LSP configuration; pytest scripts the model, runs the editor headless, reads what the
editor recorded, and checks the disk and the processes.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.project_trust import store as trust_store
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.editor import REPO, server_env

HELLO = "def greet():\n    return 'hello'\n\n\nprint(greet())\n"
EDITED = "def greet():\n    return 'bye now'\n\n\nprint(greet())\n"
UNSAVED_ON_DISK = "print('on disk')\n"
_PID = re.compile(r"serving on stdio \(pid (\d+)\)")


@dataclass
class Project:
    root: Path
    data: Path
    hello: Path
    unsaved: Path
    marker: Path  # a file the dismissed bash call would create
    busy: Path  # touched when the model holds the turn to be cancelled
    log: Path  # the server's log file


def make_project(tmp_path: Path, trusted: bool = True) -> Project:
    """A project with its own agentls.json; ``trusted``: the user trusted it before (agentls trust add),
    so that the server does not ask first (tests/stock/test_neovim_trust.py is about that question)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "agentls.json").write_text("{}\n")
    if trusted:
        trust_store.add(tmp_path / "data", root)
    hello, unsaved = root / "hello.py", root / "unsaved.py"
    hello.write_text(HELLO)
    unsaved.write_text(UNSAVED_ON_DISK)
    return Project(
        root,
        tmp_path / "data",
        hello,
        unsaved,
        root / "dismissed-marker",
        tmp_path / "busy",
        tmp_path / "server.log",
    )


def edit(path: Path, old: str, new: str) -> dict[str, str]:
    return {"filePath": str(path), "oldString": old, "newString": new}


def script_model(model: FakeModelServer, project: Project) -> int:
    """The turns the scenario's prompts take, in order; returns the request count at the stalled turn."""
    model.script(
        # 1. read the unsaved buffer, then two edits, the second built on the first.
        Turn.tool_call("read", {"filePath": str(project.unsaved)}),
        Turn.tool_call(
            "edit", {"filePath": str(project.hello), "oldString": "'hello'", "newString": "'bye'"}
        ),
        Turn.tool_call(
            "edit",
            {"filePath": str(project.hello), "oldString": "return 'bye'", "newString": "return 'bye now'"},
        ),
        Turn.text("Edited twice."),
        # 2. a bash call whose permission the user dismisses (the turn ends there).
        Turn.tool_call("bash", {"command": dismissed_command(project), "description": "make a file"}),
        # 3. a turn that streams until it is cancelled, then the next prompt.
        Turn.text("a very long answer", chunks=6).stall(after=2),
        Turn.text("Right after the cancel."),
        # 4. the async prompt.
        Turn.text("the long job is done"),
    )
    return 6


def signal_when(model: FakeModelServer, count: int, path: Path) -> threading.Thread:
    """Touch ``path`` once ``count`` model requests arrived (the editor waits on the file)."""

    def watch() -> None:
        try:
            model.wait_for_requests_from_thread(count, timeout=120)
        finally:  # even after the timeout: the editor's wait fails with what it saw, not at its own
            path.write_text("busy")

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def dismissed_command(project: Project) -> str:
    """The bash call whose dialog the user dismisses: it would create ``project.marker``."""
    return f"python3 -c \"open('{project.marker}', 'w').close()\""


def agent_config(main: FakeModelServer, titles: FakeModelServer, **extra: Any) -> dict[str, Any]:
    retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 2}
    # No map of patterns: stock Neovim hands the config over as a Lua table, whose key order (and so
    # which rule is last) is not kept. The dismissed command names no file it writes, so it asks once.
    permission = {"edit": "ask", "bash": "ask"}
    return fake_model_config(main, titles, retry=retry, permission=permission, **extra)


def server_command(project: Project) -> list[str]:
    return [sys.executable, "-m", "lsp_server", "--log-level", "INFO", "--log-file", str(project.log)]


def editor_env(project: Project) -> dict[str, str]:
    env = server_env(project.data)
    env["PYTHONPATH"] = str(REPO)
    return env


def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        titles.script(*[Turn.text("A title") for _ in range(20)])
        yield main, titles


def server_pid(project: Project) -> int:
    match = _PID.search(project.log.read_text())
    assert match, "the server never logged its pid:\n" + project.log.read_text()
    return int(match.group(1))


def gone_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (not necessarily our child) exits within ``seconds``: a pidfd becomes
    readable when it exits, so this waits on the exit itself."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], seconds)
    finally:
        os.close(fd)
    return bool(readable) or not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def run_editor(
    command: list[str], env: dict[str, str], timeout: float, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """Run the headless editor; print its output when it fails so the test log shows why."""
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n")
    return done


def read_result(path: Path, log: Path, editor_output: Callable[[], str]) -> dict[str, Any]:
    assert path.exists(), f"the editor wrote no result\n{editor_output()}\nserver log:\n{_tail(log)}"
    result: dict[str, Any] = json.loads(path.read_text())
    assert "error" not in result, f"{result['error']}\n{editor_output()}\nserver log:\n{_tail(log)}"
    return result


def _tail(log: Path) -> str:
    return log.read_text()[-6000:] if log.exists() else "(no log)"


def env_with(base: dict[str, str], extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **base, **extra}
