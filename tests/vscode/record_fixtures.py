"""Record ``agent/event`` streams from a real ``agentls serve`` run against the scripted fake model.

The VS Code view's reducer is unit-tested on these streams (``editors/vscode/test/``). Re-record the
committed fixtures with ``python -m tests.vscode.record_fixtures``; ``test_unit.py`` also records fresh
ones into a temporary directory on every run, so the fixtures can never drift from the server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT

FIXTURES = ROOT / "editors" / "vscode" / "test" / "fixtures"
SERVER = [sys.executable, "-m", "lsp_server"]
CALC = "def add(a, b):\n    return a - b\n"
TASK = {"description": "fix add", "prompt": "Fix add() in calc.py", "subagent_type": "general"}


class Rpc:
    """A minimal JSON-RPC client over the server's stdio that answers server→client requests with null."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            SERVER, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            length = 0
            while (line := self.proc.stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.inbox.put(json.loads(self.proc.stdout.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def receive(self, timeout: float = 30.0) -> dict[str, Any]:
        message = self.inbox.get(timeout=timeout)
        if "method" in message and "id" in message:  # a server→client request
            self.send({"id": message["id"], "result": None})
        return message

    def call(self, method: str, params: Any, on_event: Callable[[dict[str, Any]], None] | None = None) -> Any:
        """Send a request and wait for its answer, passing events that arrive meanwhile to ``on_event``."""
        wanted = self.request(method, params)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            message = self.receive()
            if message.get("method") == "agent/event" and on_event is not None:
                on_event(message["params"])
            elif message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
        raise TimeoutError(method)

    def close(self) -> None:
        try:
            self.call("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@dataclass
class Scenario:
    name: str
    turns: list[Turn]
    prompt: str
    # What the "user" does when an event arrives: answer dialogs, abort.
    react: Callable[[Rpc, dict[str, Any], dict[str, Any]], None]


def answer_dialogs(rpc: Rpc, event: dict[str, Any], seen: dict[str, Any]) -> None:
    props = event["properties"]
    if event["type"] == "permission.asked":
        rpc.request("agent/permission/reply", {"requestID": props["request"]["id"], "reply": "once"})
    elif event["type"] == "question.asked":
        answers = [[q["options"][0]["label"]] for q in props["request"]["questions"]]
        rpc.request("agent/question/reply", {"requestID": props["request"]["id"], "answers": answers})


def abort_after_deltas(rpc: Rpc, event: dict[str, Any], seen: dict[str, Any]) -> None:
    # Count characters, not events: the server merges the deltas of one 16 ms frame into one event.
    if event["type"] == "message.part.delta" and not seen.get("aborted"):
        seen["chars"] = seen.get("chars", 0) + len(event["properties"].get("delta", ""))
        if seen["chars"] >= 100:
            seen["aborted"] = True
            rpc.request("agent/session/abort", {"sessionID": event["properties"]["sessionID"]})


def scenarios(python: str) -> list[Scenario]:
    todos = [
        {"content": "Read calc.py", "status": "completed", "priority": "high"},
        {"content": "Fix add()", "status": "in_progress", "priority": "high"},
    ]
    question = {
        "questions": [
            {
                "question": "Which test runner?",
                "header": "Runner",
                "options": [{"label": "pytest", "description": "the usual"}, {"label": "unittest"}],
            }
        ]
    }
    return [
        Scenario(
            "edit-turn",
            [
                Turn.reasoning("The user wants add fixed; read it first.", chunks=4)
                .text("Let me read calc.py.", chunks=4)
                .tool_call("read", {"filePath": "calc.py"})
                .tool_call("todowrite", {"todos": todos})
                .usage(input=1200, output=60, cache_read=100),
                Turn.text("`add` subtracts; fixing it.", chunks=3)
                .tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"})
                .usage(input=1400, output=80),
                Turn.text("Running it.", chunks=2)
                .tool_call("bash", {"command": f"{python} -c \"print('ran')\"", "description": "Run it"})
                .usage(input=1500, output=30),
                Turn.text(
                    "Fixed: `add` now returns `a + b`.\n\n```python\nreturn a + b\n```\n", chunks=8
                ).usage(input=1600, output=40),
            ],
            "Fix add() in calc.py",
            answer_dialogs,
        ),
        Scenario(
            "question",
            [
                Turn.tool_call("question", question),
                Turn.text("Using pytest then.", chunks=3),
            ],
            "Set up tests",
            answer_dialogs,
        ),
        Scenario(
            "retry",
            [Turn.fault(429, retry_after="0"), Turn.text("Back after a retry.", chunks=4)],
            "Say hello",
            answer_dialogs,
        ),
        Scenario(
            "subagent",
            [
                Turn.text("Handing it to a sub-agent.", chunks=2).tool_call("task", TASK),
                # The child's steps: an edit that asks, then its report.
                Turn.text("Editing calc.py.", chunks=2).tool_call(
                    "edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}
                ),
                Turn.text("Fixed add().", chunks=2),
                Turn.text("The sub-agent fixed add().", chunks=3),
            ],
            "Fix add() with a sub-agent",
            answer_dialogs,
        ),
        Scenario(
            "abort",
            [Turn.text("word " * 400, chunks=200).stall(after=30)],
            "Write a long essay",
            abort_after_deltas,
        ),
    ]


def record(scenario: Scenario, work: Path) -> dict[str, Any]:
    """Run one scenario on a fresh server and project; return the fixture."""
    project = work / scenario.name / "project"
    project.mkdir(parents=True)
    (project / "calc.py").write_text(CALC)
    env = {
        **os.environ,
        "AGENTLS_DATA_DIR": str(work / scenario.name / "data"),
        "AGENTLS_CONFIG_DIR": str(work / scenario.name / "config"),
    }
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(*scenario.turns)
        titles.script(*[Turn.text("Recorded session") for _ in range(3)])
        retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 3}
        config = fake_model_config(main, titles, retry=retry, permission={"edit": "ask", "bash": "allow"})
        rpc = Rpc(project, env)
        try:
            rpc.call(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": project.as_uri(),
                    "workspaceFolders": [{"uri": project.as_uri(), "name": "project"}],
                    "capabilities": {"experimental": {"agent": {"version": 1}}},
                    "initializationOptions": {"config": config},
                },
            )
            rpc.notify("initialized", {})
            events: list[dict[str, Any]] = []
            seen: dict[str, Any] = {}

            def on_event(event: dict[str, Any]) -> None:
                events.append(event)
                scenario.react(rpc, event, seen)

            session = rpc.call("agent/session/create", {}, on_event)
            try:
                rpc.call(
                    "agent/session/prompt",
                    {"sessionID": session["id"], "parts": [{"type": "text", "text": scenario.prompt}]},
                    on_event,
                )
            except RuntimeError as exc:
                if "-32800" not in str(exc):  # an aborted turn answers with RequestCancelled
                    raise
            # The turn's last events (session.idle) may follow the answer: drain until idle.
            deadline = time.monotonic() + 10
            while not any(e["type"] == "session.idle" for e in events) and time.monotonic() < deadline:
                message = rpc.receive(timeout=max(0.1, deadline - time.monotonic()))
                if message.get("method") == "agent/event":
                    on_event(message["params"])
            messages = rpc.call("agent/session/messages", {"sessionID": session["id"]}, on_event)["messages"]
            final = rpc.call("agent/session/get", {"sessionID": session["id"]}, on_event)
            children = {
                child: rpc.call("agent/session/messages", {"sessionID": child}, on_event)["messages"]
                for child in _children(messages)
            }
        finally:
            rpc.close()
    fixture = {"scenario": scenario.name, "session": final, "events": events, "messages": messages}
    return {**fixture, "children": children} if children else fixture


def _children(messages: list[dict[str, Any]]) -> list[str]:
    """The child sessions the task parts of ``messages`` ran."""
    return [
        p["state"]["metadata"]["sessionID"]
        for m in messages
        for p in m["parts"]
        if p["type"] == "tool" and p["tool"] == "task" and "sessionID" in p["state"].get("metadata", {})
    ]


def record_all(target: Path, only: list[str] | None = None) -> list[Path]:
    """Record every scenario (or those named in ``only``) into ``target`` (one JSON file each)."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as work:
        for scenario in scenarios(sys.executable):
            if only and scenario.name not in only:
                continue
            fixture = record(scenario, Path(work))
            path = target / f"{scenario.name}.json"
            path.write_text(json.dumps(fixture, indent=1) + "\n")
            written.append(path)
    return written


if __name__ == "__main__":
    for path in record_all(FIXTURES, sys.argv[1:]):
        print(path)
