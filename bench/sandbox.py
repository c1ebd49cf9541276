"""What the OS sandbox costs a command (issue #43): ``true`` through the bash tool's own spawn path
(``core.tools.process.run_command``), unsandboxed and in the default ``workspace-write`` sandbox,
interleaved so that both see the same machine load; plus the one-time costs (the backend check, the
first command, which starts the sandbox's zygote) and, for comparison, a bubblewrap of its own per
command (what a command costs without the zygote).

Goal: a sandboxed ``true`` costs at most 15 ms more than an unsandboxed one (median of the
differences of each interleaved pair, and the difference of the medians).

    .venv/bin/python bench/sandbox.py [--runs 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config.schema import SandboxConfig
from core.sandbox.bubblewrap import probe
from core.sandbox.sandbox import Sandbox
from core.tools.process import run_command

GOAL_MS = 15.0


async def once(project: Path, sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    result = await run_command("true", cwd=project, timeout_s=30, abort=asyncio.Event(), sandbox=sandbox)
    elapsed = time.perf_counter() - started
    if result.exit_code != 0:
        raise SystemExit(f"`true` failed ({'sandboxed' if sandbox else 'plain'}): {result.output}")
    return elapsed * 1000


async def own_bwrap(sandbox: Sandbox, project: Path) -> float:
    confined = sandbox.confine(["true"], project, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(*confined.argv, cwd=project, env=confined.env)
    await process.wait()
    return (time.perf_counter() - started) * 1000


async def main(runs: int) -> int:
    started = time.perf_counter()
    checked = probe()
    check_ms = (time.perf_counter() - started) * 1000
    if not checked.works:
        raise SystemExit(f"no sandbox to measure: {checked.detail}")
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        sandbox = Sandbox(SandboxConfig(), [project], lambda message, session: None)
        first_ms = await once(project, sandbox)
        for _ in range(3):  # warm-up: the reaper, the backend check, the page cache
            await once(project, None)
            await once(project, sandbox)
        plain: list[float] = []
        boxed: list[float] = []
        own: list[float] = []
        for i in range(runs):
            order = (None, sandbox) if i % 2 == 0 else (sandbox, None)
            for which in order:
                (boxed if which is sandbox else plain).append(await once(project, which))
            own.append(await own_bwrap(sandbox, project))
    pairs = [b - p for b, p in zip(boxed, plain, strict=True)]
    plain_ms, boxed_ms = statistics.median(plain), statistics.median(boxed)
    print(f"backend check (once per process): {check_ms:.1f} ms")
    print(f"first sandboxed `true` (starts the zygote): {first_ms:.1f} ms")
    print(f"`true` in a bubblewrap of its own (no zygote): median {statistics.median(own):.1f} ms")
    print(f"`true` unsandboxed: median {plain_ms:.1f} ms over {runs} runs")
    print(f"`true` sandboxed:   median {boxed_ms:.1f} ms over {runs} runs")
    paired = statistics.median(pairs)
    print(f"difference: of the medians {boxed_ms - plain_ms:.1f} ms, median of pairs {paired:.1f} ms")
    within = paired <= GOAL_MS
    print(f"goal ≤ {GOAL_MS:.0f} ms: {'met' if within else 'MISSED'}")
    return 0 if within else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    sys.exit(asyncio.run(main(parser.parse_args().runs)))
