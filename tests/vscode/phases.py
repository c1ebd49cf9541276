"""What a VS Code driver recorded, phase by phase, and how it is run: shared by the end-to-end scenarios."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from tests.tools import tool, tools_env


def phase_result(result: dict[str, Any], output: str, name: str) -> dict[str, Any]:
    """What the driver recorded in phase ``name``; fails the test with the driver's log if it failed."""
    data = result.get("phases", {}).get(name)
    if data is None or not data.get("ok"):
        failed = result.get("failed", "(none: the driver did not finish)")
        pytest.fail(
            f"phase {name!r} did not pass; {failed!r} failed: {result.get('error')}\n{output[-12000:]}",
            pytrace=False,
        )
    assert isinstance(data, dict)
    return data


@contextmanager
def model_server() -> Iterator[tuple[FakeModelServer, asyncio.AbstractEventLoop]]:
    """A fake model on its own loop thread, with the loop: the test sets a stalled answer's event on it."""
    server = FakeModelServer()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fake-model-e2e", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=10)
        yield server, loop
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def drive(
    script: Path, args: dict[str, Any], signals: Mapping[str, Callable[[], object]]
) -> tuple[str, dict[str, Any]]:
    """Run a driver script; each ``SIGNAL name`` line it prints runs that action (release an answer, …)."""
    process = subprocess.Popen(
        [tool("node"), str(script), json.dumps(args)],
        env=tools_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("SIGNAL "):
                signals[line.split()[1]]()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        process.wait(timeout=420)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        reader.join(timeout=10)
    output = "".join(lines)
    result: dict[str, Any] = {}
    for line in lines:
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    return output, result
