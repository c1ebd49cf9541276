"""Worktree creation time (issue 40): how long making a worktree session's worktree takes on a
repository of 10,000 files, as `agentls run --worktree`, `agent/session/create {worktree}` and ACP's
`_meta.agentls.worktree` make it (``core.worktrees.service.create``: checks, `git worktree add` of a
new branch from HEAD, its facts file).

Run: .venv/bin/python bench/worktree_create.py [--files 10000] [--repeat 7]

One repository of ``--files`` small files in 100 folders (committed once); each repetition creates
a fresh worktree (timed), then discards it (not timed). Prints the median, min and max, and the
machine's load average (the figures move with it).

2026-12-07, a 2-core machine shared with other sessions: median 2,005 ms (min 1,643, max 3,678;
5 runs) at a load average of 4.8; median 19,156 ms (min 2,662) at a load average of 14.9. Nearly
all of it is `git worktree add` checking out the 10,000 files.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.worktrees import service


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=b@example.com", "-c", "user.name=b", *args], cwd=cwd, check=True)


def repository(root: Path, files: int) -> Path:
    repo = root / "repo"
    for index in range(files):
        folder = repo / f"pkg{index % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module{index}.py").write_text(f"VALUE = {index}\n\n\ndef value():\n    return VALUE\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = repository(root, args.files)
        data = root / "data"
        times = []
        for run in range(args.repeat):
            started = time.perf_counter()
            made = service.create(repo, f"bench-{run}", data)
            times.append(time.perf_counter() - started)
            service.discard(made)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    ms = [t * 1000 for t in times]
    print(
        f"worktree creation, {args.files} files, {args.repeat} runs: median {statistics.median(ms):.0f} ms "
        f"(min {min(ms):.0f}, max {max(ms):.0f}); load average {load}, {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
