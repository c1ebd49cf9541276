"""Loop benchmark: CPU per delta end to end, the gap between a tool result and the next request,
time from process start to the first model request, peak RSS; for the reads20 task the bytes of the
first request and the uncached bytes per task (``bench/cache_prefix.py``).

Run: .venv/bin/python bench/loop.py   (offline; uses the bundled fake model server)
     .venv/bin/python bench/loop.py --opencode PATH   also runs the reads20 task through ``opencode
     run`` (e.g. ``npm install opencode-ai`` in a temp folder, then its ``node_modules/.bin/opencode``)
     against the same fake model and prints the same figures for it.

reads20 on 2026-12-07 (default family, OpenAI wire; OpenCode 1.18.33 from npm, its default prompt
for an unknown model): agentls's first request 26,672 bytes (system prompt 6,369, tool specs 20,209),
34,969 uncached bytes per task, 656,944 bytes over its 21 requests; OpenCode's 30,582 (9,697 and
20,812), 40,025 uncached, 748,785 in all. Both are byte-stable from step to step.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cache_prefix import figures, report
from core.api import Agent
from core.config.loader import Layer
from core.events import PartDelta
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

DELTAS = 20_000
STEPS = 20


async def deltas(app: Agent, srv: FakeModelServer) -> None:
    srv.script(Turn.text("x" * DELTAS, chunks=DELTAS))
    session = await app.create_session()
    seen = 0

    def count(_event: object) -> None:
        nonlocal seen
        seen += 1

    remove = app.listen(count, PartDelta)
    cpu, wall = time.process_time(), time.perf_counter()
    await app.prompt(session.id, [TextInput(text="stream")])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    remove()
    # The fake server runs in this process too; its share is measured separately below and removed.
    print(f"{DELTAS} deltas: {seen} delta events, wall {wall:.2f}s ({DELTAS / wall:,.0f} chunks/s)")
    print(f"  CPU per delta, agent + fake server in one process: {cpu / DELTAS * 1e6:.1f} µs")


async def server_only(srv: FakeModelServer) -> float:
    import httpx

    srv.script(Turn.text("x" * DELTAS, chunks=DELTAS))
    cpu = time.process_time()
    async with (
        httpx.AsyncClient() as client,
        client.stream(
            "POST",
            f"{srv.openai_base}/chat/completions",
            json={"model": "m", "messages": [], "stream": True},
        ) as response,
    ):
        async for _ in response.aiter_raw():
            pass
    return (time.process_time() - cpu) / DELTAS * 1e6


async def tool_gaps(app: Agent, srv: FakeModelServer, root: Path) -> None:
    (root / "a.txt").write_text("".join(f"line {i}\n" for i in range(STEPS)))
    # Different offsets: identical calls in a row would (rightly) trip the doom-loop guard.
    reads = [Turn.tool_call("read", {"filePath": "a.txt", "offset": i}, fragments=1) for i in range(STEPS)]
    srv.script(*reads, Turn.text("done"))
    session = await app.create_session()
    await app.prompt(session.id, [TextInput(text="read it many times")])
    history = await app.messages(session.id)
    ends = [
        p.state.time.end
        for m in history
        for p in m.parts
        if p.type == "tool" and p.state.status == "completed"
    ]
    starts = [m.info.time.created for m in history if m.info.role == "assistant"][1:]
    gaps = [s - e for e, s in zip(ends, starts, strict=False)]
    print(
        f"{STEPS} tool steps: median gap tool result → next assistant step {statistics.median(gaps):.1f} ms"
    )
    print(report(f"reads{STEPS}", figures([r.body for r in srv.requests[-(STEPS + 1) :]])))


def opencode_reads(opencode: str, tmp: Path) -> None:
    """The reads20 task through ``opencode run`` against the fake model: the same scripted reads, the
    same figures over its agent's requests (its titles go to a server of their own)."""
    root = tmp / "oc-project"
    root.mkdir()
    (root / "a.txt").write_text("".join(f"line {i}\n" for i in range(STEPS)))
    path = "a.txt"  # as the agentls task reads it
    with FakeModelServer.threaded() as srv, FakeModelServer.threaded() as titles:
        srv.script(*[Turn.tool_call("read", {"filePath": path, "offset": i + 1}) for i in range(STEPS)])
        srv.script(Turn.text("done"))
        titles.script(*[Turn.text("Reads") for _ in range(4)])
        config = {
            "$schema": "https://opencode.ai/config.json",
            "model": "fake/m",
            "small_model": "titles/t",
            "provider": {
                name: {
                    "npm": "@ai-sdk/openai-compatible",
                    "options": {"baseURL": server.openai_base, "apiKey": "offline"},
                    "models": {model: {}},
                }
                for name, server, model in (("fake", srv, "m"), ("titles", titles, "t"))
            },
        }
        config_file = tmp / "opencode.json"
        config_file.write_text(json.dumps(config))
        # PWD too: OpenCode takes its folder from it, not from the working directory it starts in.
        env = {
            **os.environ,
            "HOME": str(tmp / "oc-home"),
            "OPENCODE_CONFIG": str(config_file),
            "PWD": str(root),
        }
        proc = subprocess.run(
            [opencode, "run", "--model", "fake/m", "read it many times"],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=300,
        )
        if proc.returncode != 0:
            sys.exit(f"opencode run failed ({proc.returncode}):\n{proc.stderr.decode()[-2000:]}")
        bodies = [r.body for r in srv.requests]
    print(report(f"reads{STEPS} (OpenCode)", figures(bodies)))


def first_request(srv: FakeModelServer, titles: FakeModelServer, root: Path) -> None:
    """Process start of `agentls run` → the first request the model server sees."""
    content = json.dumps(fake_model_config(srv, titles))
    env = {**os.environ, "AGENTLS_CONFIG_CONTENT": content, "AGENTLS_DATA_DIR": str(root / "data2")}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsp_server.cli", "run", "hi", "--yes", "-C", str(root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=Path(__file__).resolve().parents[1],
    )
    while not srv.requests and proc.poll() is None:
        time.sleep(0.002)
    first = time.perf_counter() - started
    proc.wait(timeout=60)
    print(f"process start → first model request (agentls run): {first:.2f}s")


async def main() -> None:
    opencode = sys.argv[sys.argv.index("--opencode") + 1] if "--opencode" in sys.argv else None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        async with FakeModelServer() as srv, FakeModelServer() as titles:
            app = await open_agent(
                root,
                layers=[
                    Layer("bench", fake_model_config(srv, titles, context=1_000_000, output=32_000), None)
                ],
                data_dir=Path(tmp) / "data",
            )
            try:
                await deltas(app, srv)
                print(f"  CPU per delta of the fake server alone: {await server_only(srv):.1f} µs")
                await tool_gaps(app, srv, root)
            finally:
                await app.close()
        # Start-up: a separate process, timed from its start to the first request the server sees.
        with FakeModelServer.threaded() as srv2, FakeModelServer.threaded() as titles2:
            srv2.script(Turn.text("hello"))
            titles2.script(Turn.text("title"))
            first_request(srv2, titles2, root)
        if opencode is not None:
            opencode_reads(opencode, Path(tmp))
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
