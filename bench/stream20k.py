"""stream20k: the agent's own CPU per streamed delta (issue #39).

One turn of a real agent (``open_agent``: the loop, the processor, the bus, the SQLite store)
answers with 20,000 small text deltas from the scripted fake model server, while a front end's
subscription drains every event. The figure is the process's CPU for the turn minus the CPU of
producing the text — the fake model servers run on their own threads and their threads' CPU
clocks are read and subtracted — divided by the deltas.

Each measured turn runs in a fresh child process (one warm-up turn first, then a new session), so
runs of two checkouts can alternate on a loaded machine: ``--against DIR`` runs the same bench
against the code in DIR (e.g. ``git archive main | tar -x -C /tmp/base``) turn for turn.

``--serve``: the same turn through a real ``agentls serve`` (stdio, a plugin client receiving its
``agent/event`` notifications), the figure being the server process's CPU (its /proc stat: the
model servers run in the bench) per delta: the agent and the LSP front end together.

    .venv/bin/python bench/stream20k.py [--deltas 20000] [--runs 5] [--against DIR] [--serve]

Figures (2026-12-07, 2 cores shared with other sessions at load 4-15, medians of 5-7 interleaved):
main at b5d8b8b 27.0-31.0 µs per delta in-process, 33.0 µs through ``agentls serve``; after the
commits of issue #39's perf slice 16.0 µs in-process, 17.0 µs through ``serve`` (the text's
production ~7 µs, not counted). What is left, per delta: h11 framing each HTTP chunk ~6.5 µs
(a model server sends one chunk per event), the chunk's JSON ~1.3 µs, the decoder, the part's
delta event and the bus ~3 µs, the async generators' hops between them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
GOAL_US = 40.0


def answer(deltas: int) -> str:
    """Distinct pieces of 6 characters, like tokens of a real answer."""
    return "".join(f"w{i % 100_000:05d}" for i in range(deltas))


def _thread_cpu(thread: threading.Thread) -> float:
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


async def one(deltas: int) -> dict[str, float]:
    """Open an agent, warm it with a short turn, then time one turn of ``deltas`` deltas."""
    from core.config.loader import Layer
    from core.events import PartDelta
    from core.message.prompt_input import TextInput
    from core.open import open_agent
    from demo.config import fake_model_config
    from demo.fake_model import FakeModelServer
    from demo.fake_script import Turn

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeModelServer.threaded() as srv,
        FakeModelServer.threaded() as titles,
    ):
        servers = [t for t in threading.enumerate() if t.name == "fake-model"]
        root = Path(tmp) / "project"
        root.mkdir()
        config = fake_model_config(srv, titles, context=1_000_000, output=32_000)
        agent = await open_agent(root, layers=[Layer("bench", config, None)], data_dir=Path(tmp) / "data")
        try:
            seen = 0

            async def front_end() -> None:
                # What a front end does: one subscription of every event, drained in batches.
                nonlocal seen
                with agent.subscribe() as events:
                    async for event in events:
                        batch = [event]
                        while (more := events.get_nowait()) is not None:
                            batch.append(more)
                        seen += sum(isinstance(e, PartDelta) for e in batch)

            consumer = asyncio.create_task(front_end())
            for n in (2_000, deltas):
                titles.script(Turn.text("A title"))
                srv.script(Turn.text(answer(n), chunks=n).usage(input=10, output=n))
                session = await agent.create_session()
                await asyncio.sleep(0)
                seen = 0
                before = [_thread_cpu(t) for t in servers]
                cpu, wall = time.process_time(), time.perf_counter()
                await agent.prompt(session.id, [TextInput(text="stream")])
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                text_cpu = sum(_thread_cpu(t) - b for t, b in zip(servers, before, strict=True))
            history = await agent.messages(session.id)
            stored = "".join(
                p.text for m in history if m.info.role == "assistant" for p in m.parts if p.type == "text"
            )
            if stored != answer(deltas):
                sys.exit(f"the stored answer differs from the streamed one ({len(stored)} characters)")
            consumer.cancel()
        finally:
            await agent.close()
    return {"agent_us": (cpu - text_cpu) / deltas * 1e6, "text_us": text_cpu / deltas * 1e6, "wall": wall}


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> set[int]:
    me = os.getpid()
    return {int(pid) for pid in Path(f"/proc/{me}/task/{me}/children").read_text().split()}


async def serve(tree: Path, deltas: int) -> dict[str, float]:
    """One turn of ``deltas`` deltas through ``agentls serve`` run from ``tree``, after a warm-up."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the bench's own client and fake servers; the server runs ``tree``
    from demo.fake_model import FakeModelServer
    from demo.fake_script import Turn
    from tests.lsp.conftest import agent_config
    from tests.lsp.editor import PLUGIN, SERVER, initialize, make_client, server_env

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeModelServer.threaded() as srv,
        FakeModelServer.threaded() as titles,
    ):
        root = Path(tmp) / "project"
        root.mkdir()
        client, editor = make_client(("agent/event",))

        def received() -> str:
            events = editor.notifications.get("agent/event", [])
            return "".join(e["properties"]["delta"] for e in events if e["type"] == "message.part.delta")

        before = _children()
        env = {**server_env(Path(tmp) / "data"), "PYTHONPATH": str(tree)}
        await client.start_io(*SERVER, env=env, cwd=str(tree))
        [pid] = _children() - before
        await initialize(
            client, root, PLUGIN, {"config": agent_config(srv, titles, context=1_000_000, output=32_000)}
        )
        try:
            for n in (2_000, deltas):
                titles.script(Turn.text("A title"))
                srv.script(Turn.text(answer(n), chunks=n).usage(input=10, output=n))
                session = await client.protocol.send_request_async("agent/session/create", {})
                editor.notifications.clear()
                cpu, wall = _process_cpu(pid), time.perf_counter()
                params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "stream"}]}
                await client.protocol.send_request_async("agent/session/prompt", params)
                async with asyncio.timeout(30):  # the last frame's deltas may follow the answer
                    while received() != answer(n):
                        editor.arrived.clear()
                        await editor.arrived.wait()
                cpu, wall = _process_cpu(pid) - cpu, time.perf_counter() - wall
        finally:
            await client.shutdown_session()
            await client.stop()
    return {"agent_us": cpu / deltas * 1e6, "text_us": 0.0, "wall": wall}


def child(tree: Path, deltas: int) -> dict[str, float]:
    """One measured turn in a fresh process importing the code of ``tree``."""
    done = subprocess.run(
        [sys.executable, str(HERE), "--one", "--tree", str(tree), "--deltas", str(deltas)],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"the run against {tree} failed:\n{done.stdout}\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout, run turn for turn with this one")
    parser.add_argument("--serve", action="store_true", help="through a real `agentls serve`")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        sys.path.insert(0, str(args.tree.resolve()))
        print(json.dumps(asyncio.run(one(args.deltas))))
        return
    trees = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in trees.items():
            runs[name].append(
                asyncio.run(serve(tree, args.deltas)) if args.serve else child(tree, args.deltas)
            )
    print(f"stream20k: {args.deltas} deltas per turn, median of {args.runs} runs (interleaved)")
    for name, tree in trees.items():
        agent = [r["agent_us"] for r in runs[name]]
        text = statistics.median(r["text_us"] for r in runs[name])
        wall = statistics.median(r["wall"] for r in runs[name])
        spread = " ".join(f"{a:.1f}" for a in sorted(agent))
        print(
            f"  {name} ({tree}): agent CPU per delta {statistics.median(agent):.1f} µs "
            f"[{spread}], text production {text:.1f} µs, wall {wall:.2f} s"
        )
    mine = statistics.median(r["agent_us"] for r in runs["this"])
    print(f"goal ≤ {GOAL_US:g} µs per delta: {'met' if mine <= GOAL_US else 'MISSED'}")


if __name__ == "__main__":
    main()
