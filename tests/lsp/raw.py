"""A bare JSON-RPC peer over a real ``agentls serve`` process: bytes in, frames out, nothing hidden.

The lifecycle tests need what a client library would not do: write broken frames, leave out params,
close stdin, kill the editor process. Reading runs in a thread so every wait has a deadline.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tests.lsp.editor import REPO, server_env, uri

SERVE = [sys.executable, "-m", "lsp_server", "--log-level", "INFO"]


# Server requests a stock editor answers by itself, without the user.
AUTO_ANSWER = ("window/workDoneProgress/create", "client/registerCapability")


def frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class RawServer:
    """One server process with its stdin, a queue of decoded frames and its stderr log."""

    def __init__(self, root: Path, data_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        env = {**server_env(data_dir), **(extra_env or {})}
        self.root = root
        self.proc = subprocess.Popen(
            SERVE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env,
            start_new_session=True,  # its own group, so a test can check for leftovers
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.log: list[str] = []
        self._next_id = 0
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self._log_reader = threading.Thread(target=self._read_log, daemon=True)
        self._log_reader.start()

    def _read(self) -> None:
        out: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                self.frames.put(None)
                return
            message = json.loads(out.read(length))
            if message.get("method") in AUTO_ANSWER and "id" in message:
                self.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
            self.frames.put(message)

    def _read_log(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self.log.append(line.decode(errors="replace").rstrip("\n"))

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.write(frame(message))
        return self._next_id

    def notify(self, method: str, params: Any = None) -> None:
        self.write(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def next(self, match: Callable[[dict[str, Any]], bool], timeout: float = 30.0) -> dict[str, Any]:
        """The next frame ``match`` accepts (answering the server's own requests with null meanwhile)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching frame within {timeout}s; log:\n" + "\n".join(self.log[-30:]))
            try:
                message = self.frames.get(timeout=remaining)
            except queue.Empty:
                continue
            if message is None:
                raise EOFError("the server closed stdout; log:\n" + "\n".join(self.log[-30:]))
            if match(message):
                return message
            if "method" in message and "id" in message:
                self.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))

    def answer(self, msg_id: int, timeout: float = 30.0) -> dict[str, Any]:
        return self.next(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> Any:
        reply = self.answer(self.send(method, params), timeout)
        assert "error" not in reply, reply
        return reply["result"]

    def initialize(self, options: Any = None, process_id: int | None = None, **caps: Any) -> Any:
        params = {
            "processId": process_id,
            "rootUri": uri(self.root),
            "capabilities": caps,
            "initializationOptions": options,
            "clientInfo": {"name": "raw-test"},
        }
        result = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status, once the process has exited and its last stderr lines are in ``log``
        (the reader thread may still hold them when ``wait`` returns); None if it did not exit."""
        deadline = time.monotonic() + timeout
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self._log_reader.join(max(0.0, deadline - time.monotonic()) + 5.0)
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (zombies of an exited server do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # killpg(0) also succeeds for zombies: look at the states.
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def processes_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker`` (processes a tool started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
