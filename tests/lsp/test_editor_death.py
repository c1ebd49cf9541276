"""The editor dies with SIGKILL, under load, at any moment of the handshake: ``agentls serve`` exits
every time. The editor is a real parent process that starts ``agentls serve`` and names its own pid
as ``processId``; the server's stdin stays open (the test holds the pipe, as a forked helper of an
editor can), so only the ``processId`` watch can notice. CPU burners run meanwhile (issue #43: the
server missed the death in 2 of 5 tries under load)."""

from __future__ import annotations

import ctypes
import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from tests.lsp.editor import REPO, server_env, uri
from tests.lsp.raw import SERVE, frame
from tests.lsp.test_lifecycle import wait_until

ROUNDS = 20
EXIT_BOUND_S = 5.0  # the watch polls every 0.5 s, the close takes milliseconds: 5 s even under load
_PR_SET_CHILD_SUBREAPER = 36

# The editor: starts the server with the test's pipes, says its pid, then lives until killed.
EDITOR = """
import os, signal, subprocess, sys
serve = subprocess.Popen(sys.argv[3:], stdin=int(sys.argv[1]), stdout=int(sys.argv[2]),
                         pass_fds=(int(sys.argv[1]), int(sys.argv[2])))
print(serve.pid, flush=True)
while True:
    signal.pause()
"""


@pytest.fixture
def load() -> Iterator[None]:
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)
    ]
    yield
    for burner in burners:
        burner.kill()
        burner.wait()


@pytest.fixture
def subreaper() -> Iterator[None]:
    """Orphaned servers become the test's children: it can wait for them (no zombie left behind)."""
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    yield
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


class Frames:
    """Frames read from the server's stdout, each wait with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.data = b""

    def answer(self, msg_id: int, deadline_s: float = 60.0) -> dict[str, object]:
        """The response to request ``msg_id`` (notifications and requests before it are skipped)."""
        while True:
            message = self._next(deadline_s)
            if message.get("id") == msg_id and "method" not in message:
                return message

    def _next(self, deadline_s: float) -> dict[str, object]:
        while (end := self.data.find(b"\r\n\r\n")) < 0 or len(self.data) < end + 4 + self._length(end):
            ready, _, _ = select.select([self.fd], [], [], deadline_s)
            assert ready, f"no message within {deadline_s} s; read {self.data!r}"
            chunk = os.read(self.fd, 65536)
            assert chunk, f"the server closed stdout; read {self.data!r}"
            self.data += chunk
        start, length = end + 4, self._length(end)
        body, self.data = self.data[start : start + length], self.data[start + length :]
        return json.loads(body)  # type: ignore[no-any-return]

    def _length(self, end: int) -> int:
        head = self.data[:end].decode()
        return int(head.split("Content-Length:", 1)[1].split("\r\n", 1)[0])


def _logged(log: Path, text: str) -> bool:
    return log.exists() and text in log.read_text()


def _wait_exit(pid: int, bound: float) -> int | None:
    """The server's exit status within ``bound`` seconds (it is the test's child now), else None."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], bound)
    finally:
        os.close(pidfd)
    if not ready:
        return None
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.usefixtures("load", "subreaper")
def test_the_server_exits_each_time_its_editor_is_killed_under_load(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for round_ in range(ROUNDS):
        log = tmp_path / f"serve-{round_}.log"
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        command = [*SERVE, "--log-file", str(log)]
        editor = subprocess.Popen(
            [sys.executable, "-c", EDITOR, str(stdin_r), str(stdout_w), *command],
            stdout=subprocess.PIPE,
            pass_fds=(stdin_r, stdout_w),
            cwd=REPO,
            env=server_env(tmp_path / "data"),
        )
        os.close(stdin_r)
        os.close(stdout_w)
        assert editor.stdout is not None
        serve_pid = int(editor.stdout.readline())
        params = {"processId": editor.pid, "rootUri": uri(project), "capabilities": {}}
        initialize = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        # 0: the editor dies before it sends initialize (the server is reading); 1: right after it
        # sends it; 2: once it is answered, with `initialized` and a request sent (the server
        # loading); 3: once that request is answered (the full server and the agent running).
        moment = round_ % 4
        # The server pins its parent when it starts (an editor killed before that is not told
        # apart from one in another PID namespace: see lsp_server/editor_process.py).
        wait_until(partial(_logged, log, "reading the client's first message"))
        if moment == 0:
            editor.kill()
            editor.wait()
        os.write(stdin_w, initialize)
        frames = Frames(stdout_r)
        if moment >= 2:
            assert "result" in frames.answer(1)
            os.write(stdin_w, frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            listing = {"jsonrpc": "2.0", "id": 2, "method": "agent/session/list", "params": {}}
            os.write(stdin_w, frame(listing))
        if moment == 3:
            assert "result" in frames.answer(2), "the agent did not answer"
        if moment != 0:
            editor.kill()
            editor.wait()
        code = _wait_exit(serve_pid, EXIT_BOUND_S)
        if code is None:
            os.kill(serve_pid, 9)
            os.waitpid(serve_pid, 0)
        os.close(stdin_w)
        os.close(stdout_r)
        text = log.read_text() if log.exists() else "(no log)"
        assert code is not None, f"round {round_}: the server outlived its editor; its log:\n{text}"
        assert f"the editor process {editor.pid} is gone" in text, text
