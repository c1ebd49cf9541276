"""Streaming through one agent host: one session, then ten at once, each from its own front end
(issue #39).

A real host (``python -m host``) serves the project; ten front ends attach to it (``RemoteAgent``
connections from this process, as ten editors would), and in each round ``--sessions`` of them
prompt a session of their own at once, each answered by the scripted fake model server with
``--deltas`` small deltas of an answer only that session gets. Figures per delta: the host's CPU
(its /proc stat, so nothing of the model server's is in it) and the front ends' CPU (this process,
the model server's threads subtracted). Every round checks that each session stored exactly its
own answer and that each front end saw every session's text whole and in order, under that
session's id only.

    .venv/bin/python bench/host_stream.py [--deltas 20000] [--runs 3] [--sessions 1,10] [--against DIR]

``--against DIR`` runs the host from the code in DIR (the front ends stay this checkout's), round
for round with this checkout's host.

Figures (2026-12-07, 2 cores shared at load 8-15, medians of 3): with every delta forwarded to every
front end (main at b5d8b8b, 5,000 deltas a session) the host spent 116.0 µs of CPU per delta for
one session and 113.8 µs for ten at once, the ten front ends 85.4 and 80.4 µs; with a frame's
deltas merged (host/broadcast.py) 18.0 and 19.2 µs, front ends 1.6 µs. At 20,000 deltas a
session: one session 16.0 µs, ten at once 16.6 µs per delta in the host, front ends 0.9-1.0 µs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.events import Event, PartDelta
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from core.remote.attach import attach
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

ROOT = Path(__file__).resolve().parents[1]
FRONT_ENDS = 10
TICK = os.sysconf("SC_CLK_TCK")


def answer(tag: int, deltas: int) -> str:
    """Session ``tag``'s answer: distinct 8-character pieces that name the session."""
    return "".join(f"s{tag:02d}{i % 10_000:04d}." for i in range(deltas))


def host_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def thread_cpu(threads: list[threading.Thread]) -> float:
    return sum(time.clock_gettime(time.pthread_getcpuclockid(t.ident or 0)) for t in threads)


class Host:
    """``python -m host`` on the bench's data dir, from the code of ``tree``."""

    def __init__(self, tree: Path, data_dir: Path, env: dict[str, str]) -> None:
        self.tree, self.data_dir, self.env = tree, data_dir, env
        self.proc: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> Host:
        read_end, write_end = os.pipe()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "host",
            "--data-dir",
            str(self.data_dir),
            "--ready-fd",
            str(write_end),
            "--log-level",
            "WARNING",
            cwd=self.data_dir,
            env={**self.env, "PYTHONPATH": str(self.tree)},
            stdin=asyncio.subprocess.DEVNULL,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        loop = asyncio.get_running_loop()
        line = await asyncio.wait_for(loop.run_in_executor(None, os.read, read_end, 4096), 60)
        os.close(read_end)
        if not line.startswith(b"ready"):
            sys.exit(f"the host from {self.tree} did not start")
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            await asyncio.wait_for(self.proc.wait(), 30)


class Watcher:
    """What one front end saw: each session's streamed text, by the session id the deltas carry."""

    def __init__(self, agent: RemoteAgent) -> None:
        self.agent = agent
        self.text: dict[str, list[str]] = defaultdict(list)
        self.stop = agent.listen(self._on, PartDelta)

    def _on(self, event: Event) -> None:
        assert isinstance(event, PartDelta)
        self.text[event.sessionID].append(event.delta)


async def one_round(
    host: Host,
    agents: list[RemoteAgent],
    servers: tuple[FakeModelServer, FakeModelServer],
    sessions: int,
    deltas: int,
) -> dict[str, float]:
    """``sessions`` front ends prompt a session each, at once; figures per delta, checked."""
    srv, titles = servers
    model_threads = [t for t in threading.enumerate() if t.name == "fake-model"]
    prompting = agents[:sessions]
    made = [await agent.create_session() for agent in prompting]
    watchers = [Watcher(agent) for agent in agents]
    srv.script(*(Turn.text(answer(tag, deltas), chunks=deltas) for tag in range(sessions)))
    titles.script(*(Turn.text("A title") for _ in range(sessions)))
    cpu_host, cpu_here, text = host_cpu(host.pid), time.process_time(), thread_cpu(model_threads)
    wall = time.perf_counter()
    await asyncio.gather(
        *(
            agent.prompt(session.id, [TextInput(text="stream")])
            for agent, session in zip(prompting, made, strict=True)
        )
    )
    wall = time.perf_counter() - wall
    text = thread_cpu(model_threads) - text
    cpu_here = time.process_time() - cpu_here - text
    cpu_host = host_cpu(host.pid) - cpu_host
    answers = {answer(tag, deltas) for tag in range(sessions)}
    for session in made:
        history = await prompting[0].messages(session.id)
        stored = [p.text for m in history if m.info.role == "assistant" for p in m.parts if p.type == "text"]
        if len(stored) != 1 or stored[0] not in answers:
            sys.exit(f"cross-talk: session {session.id} stored {[s[:20] for s in stored]}")
        answers.discard(stored[0])
        for watcher in watchers:
            seen = "".join(watcher.text[session.id])
            if seen != stored[0]:
                sys.exit(f"a front end saw {len(seen)} characters of session {session.id}, not its answer")
    for watcher in watchers:
        watcher.stop()
        if set(watcher.text) - {s.id for s in made}:
            sys.exit("a front end saw deltas of a session that did not stream")
    total = sessions * deltas
    return {
        "host_us": cpu_host / total * 1e6,
        "front_us": cpu_here / total * 1e6,
        "wall": wall,
    }


def environment(tmp: Path, config: dict[str, object]) -> dict[str, str]:
    """The environment of the host and of this process (the host serves only its own)."""
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name.startswith("AGENTLS_") or name == "XDG_RUNTIME_DIR":
            del os.environ[name]
    runtime = Path(tempfile.mkdtemp(prefix="al-", dir="/tmp"))
    values = {
        "AGENTLS_CONFIG_DIR": str(tmp / "config"),
        "HOME": str(tmp / "home"),
        "AGENTLS_CONFIG_CONTENT": json.dumps(config),
        "XDG_RUNTIME_DIR": str(runtime),
        "AGENTLS_HOST_IDLE": "600",
    }
    os.environ.update(values)
    return dict(os.environ)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", default=f"1,{FRONT_ENDS}")
    parser.add_argument("--against", type=Path, help="run the host from another checkout, round for round")
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",")]
    trees = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    figures: dict[tuple[str, int], list[dict[str, float]]] = defaultdict(list)
    tmp = Path(tempfile.mkdtemp(prefix="host-stream-"))
    try:
        with FakeModelServer.threaded() as srv, FakeModelServer.threaded() as titles:
            config = fake_model_config(srv, titles, context=1_000_000, output=200_000)
            env = environment(tmp, config)
            project = tmp / "project"
            project.mkdir()
            hosts = {name: (tree, tmp / f"data-{i}") for i, (name, tree) in enumerate(trees.items())}
            for run in range(args.runs + 1):  # the first: warm-up, not counted
                for name, (tree, data_dir) in hosts.items():
                    async with Host(tree, data_dir, env) as host:
                        agents = [
                            await attach(project, data_dir=data_dir, client=f"bench-{i}", mode="attach")
                            for i in range(FRONT_ENDS)
                        ]
                        try:
                            await one_round(host, agents, (srv, titles), 1, min(args.deltas, 2_000))
                            for count in counts:
                                result = await one_round(host, agents, (srv, titles), count, args.deltas)
                                if run:
                                    figures[(name, count)].append(result)
                        finally:
                            for agent in agents:
                                await agent.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"host_stream: {args.deltas} deltas a session, {FRONT_ENDS} attached, median of {args.runs}")
    for (name, count), runs in figures.items():
        in_host = statistics.median(r["host_us"] for r in runs)
        front = statistics.median(r["front_us"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        print(
            f"  {name}: {count:>2} session(s) at once: host CPU per delta {in_host:.1f} µs, "
            f"{FRONT_ENDS} front ends' CPU per delta {front:.1f} µs, wall {wall:.2f} s"
        )


if __name__ == "__main__":
    asyncio.run(main())
