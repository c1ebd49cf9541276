"""Memory of background sub-agents (issue 40): what 5 of them, each mid-turn, add to the agent's RSS.

Run: .venv/bin/python bench/background_agents.py [--repeat 5] [--agents 5]

Each repetition is a fresh process (Python keeps the memory it once took, so one process would
measure its own history): an agent on a temporary project with the scripted fake model (in the
same process), a warm-up turn with a tool call, then ``--agents`` parent sessions each start one
background sub-agent (``task`` with ``background: true``; a session runs at most 4) whose first
step runs a command that waits. Once every sub-agent is blocked in its command, the process's RSS
(VmRSS) is read again: the difference is what the sub-agents cost the agent (their sessions, turns,
requests and stored messages). Their commands are separate processes, reported on their own.
Prints the medians over the repetitions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config.loader import Layer
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn


def rss_kb(pid: str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def waiters(marker: str) -> list[str]:
    """Pids of live processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(Path("/proc/self").resolve().name):
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(entry.name)
            except OSError:
                continue
    return found


async def one(agents: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        gate = Path(tmp) / "gate"
        marker = f"bgbench{Path(tmp).name}"
        wait = (
            f'{sys.executable} -c "import os, time\n'
            "while not os.path.exists('" + str(gate) + "'): time.sleep(0.05)\" " + marker
        )
        async with FakeModelServer() as srv, FakeModelServer() as titles:
            titles.script(*[Turn.text("title") for _ in range(agents * 3 + 5)])
            config = fake_model_config(srv, titles, permission="allow")
            app = await open_agent(root, layers=[Layer("bench", config, None)], data_dir=Path(tmp) / "data")
            try:
                srv.script(
                    Turn.tool_call("bash", {"command": "echo warm", "description": "warm"}), Turn.text("ok")
                )
                warm = await app.create_session()
                await app.prompt(warm.id, [TextInput(text="warm up")])
                before = rss_kb()
                for n in range(agents):
                    job = {"description": f"job {n}", "prompt": f"JOB-{n}: wait", "subagent_type": "general"}
                    srv.script_for(
                        f"PARENT-{n}", Turn.tool_call("task", {**job, "background": True}), Turn.text("ok")
                    )
                    srv.script_for(
                        f"JOB-{n}", Turn.tool_call("bash", {"command": wait, "description": "wait"})
                    )
                    session = await app.create_session()
                    await app.prompt(session.id, [TextInput(text=f"PARENT-{n}: start it")])
                async with asyncio.timeout(60):
                    while len(waiters(marker)) < agents:
                        await asyncio.sleep(0.05)
                after = rss_kb()
                commands = sum(rss_kb(pid) for pid in waiters(marker))
                running = [a for a in await app.background_agents() if a.status == "running"]
                assert len(running) == agents, running
            finally:
                await app.close()
    return {"before_mb": before / 1024, "added_mb": (after - before) / 1024, "commands_mb": commands / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--agents", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(one(args.agents))))
        return
    runs = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--agents", str(args.agents)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    added = [round(r["added_mb"], 1) for r in runs]
    print(f"agent RSS before: {med['before_mb']:.1f} MB (median of {args.repeat})")
    print(f"{args.agents} background sub-agents mid-turn add {med['added_mb']:.1f} MB to it (runs: {added})")
    print(f"  per sub-agent: {med['added_mb'] / args.agents:.2f} MB")
    print(
        f"their {args.agents} waiting commands: {med['commands_mb']:.1f} MB of their own (separate processes)"
    )


if __name__ == "__main__":
    main()
