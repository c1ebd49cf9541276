"""What bench/startup.py needs to time a process from the outside: a stdio JSON-RPC client that
stamps every message as it arrives, and a fake model server that stamps each request and the last
byte of each answer.

The client is deliberately raw (no pygls, no pytest-lsp): the bench must time the server, not a
client library's own start-up.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import threading
import time
from typing import IO, Any

from demo.fake_model import FakeModelServer, RecordedRequest


class StampedModel(FakeModelServer):
    """The fake model server, noting when each request arrived and when its answer was complete."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []
        self.answered: list[float] = []

    async def _answer(self, req: RecordedRequest, writer: Any) -> bool:
        self.arrived.append(time.perf_counter())
        try:
            return await super()._answer(req, writer)
        finally:
            self.answered.append(time.perf_counter())

    def wait_arrived(self, count: int, timeout: float) -> float:
        """The perf_counter stamp of request number ``count`` (1-based), polling until it comes."""
        deadline = time.perf_counter() + timeout
        while len(self.arrived) < count:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"the model saw {len(self.arrived)} requests, not {count}")
            time.sleep(0.0005)
        return self.arrived[count - 1]


class StdioClient:
    """A JSON-RPC client over a child's stdin/stdout; server→client requests get a null result."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self._stdin: IO[bytes] = proc.stdin
        self._ids = itertools.count(1)
        self._answers: dict[int, queue.Queue[tuple[float, dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._reader.start()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self._lock:
            self._stdin.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
            self._stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> queue.Queue[tuple[float, dict[str, Any]]]:
        """Send a request; the queue receives (arrival stamp, answer) once."""
        ident = next(self._ids)
        answer: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self._answers[ident] = answer
        self.send({"id": ident, "method": method, "params": params})
        return answer

    def call(self, method: str, params: Any, timeout: float = 60) -> tuple[float, Any]:
        """Send a request and wait: (arrival stamp of the answer, its result)."""
        stamp, answer = self.request(method, params).get(timeout=timeout)
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        return stamp, answer.get("result")

    def _read(self, stdout: IO[bytes]) -> None:
        while True:
            length = 0
            while (line := stdout.readline()) not in (b"\r\n", b"\n"):
                if not line:
                    return
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            message = json.loads(stdout.read(length))
            stamp = time.perf_counter()
            if "method" in message and "id" in message:  # a request of the server: answer it
                self.send({"id": message["id"], "result": None})
            elif "id" in message and (answer := self._answers.pop(message["id"], None)) is not None:
                answer.put((stamp, message))
