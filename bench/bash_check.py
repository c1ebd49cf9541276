"""Bash permission check benchmark: how long ``bash_requests`` takes by command size and shape.

Run: .venv/bin/python bench/bash_check.py [--repeat 5] [--sizes 1000,10000,32000,60000,1000000]

For each shape — many ``&&``-joined commands, one long quoted string, a double-quoted string
with variables, deep ``$( )`` nesting, many here-documents with substitutions, one command with
many file arguments — and each size, prints the median wall time over ``--repeat`` runs of
``bash_requests`` (the checker as the bash tool calls it, in a fresh temporary project) and the
median CPU time of the process (steadier than wall time on a machine other work shares).

Goal (issue 43): linear in the command's length; every check ≤ 200 ms, or the command is over
the size limit and simply asks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.permission.bash import bash_requests


def chain(size: int) -> str:
    parts: list[str] = []
    total = 0
    while total < size:
        part = f"ls -la sub{len(parts)} && cat f{len(parts)}.txt | grep x"
        parts.append(part)
        total += len(part) + 4
    return " && ".join(parts)


def quoted(size: int) -> str:
    return "echo '" + "a b c " * (size // 6) + "'"


def double_quoted(size: int) -> str:
    return 'echo "' + "a $HOME b " * (size // 10) + '"'


def nested(size: int) -> str:
    one = "echo " + "$(" * 90 + "ls" + ")" * 90
    return " && ".join([one] * max(1, size // (len(one) + 4)))


def heredocs(size: int) -> str:
    one = "cat <<EOF\nline $(date) here\nEOF\n"
    return one * max(1, size // len(one))


def arguments(size: int) -> str:
    return "ls " + " ".join(f"f{i}" for i in range(size // 6))


SHAPES: dict[str, Callable[[int], str]] = {
    "chain": chain,
    "quoted": quoted,
    "dquoted": double_quoted,
    "nested": nested,
    "heredocs": heredocs,
    "arguments": arguments,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000,32000,60000,1000000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="agentls-bench-"))
    print(f"{'shape':10} {'size':>9} {'wall ms':>9} {'cpu ms':>9} {'requests':>9}")
    for name, make in SHAPES.items():
        for size in sizes:
            command = make(size)
            times: list[float] = []
            cpu: list[float] = []
            count = 0
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), time.process_time()
                count = len(bash_requests(command, root, root))
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            wall_ms, cpu_ms = 1000 * statistics.median(times), 1000 * statistics.median(cpu)
            print(f"{name:10} {len(command):9d} {wall_ms:9.1f} {cpu_ms:9.1f} {count:9d}", flush=True)


if __name__ == "__main__":
    main()
