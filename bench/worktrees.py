"""Worktree sessions: how long making one takes on a repository of 10,000 files (issue 40), and
removing it again. A throw-away repository in a temp folder; medians of ``--runs``.

    .venv/bin/python bench/worktrees.py [--files 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from core.worktrees import service


def make_repo(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"pkg{i % 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, data = Path(tmp) / "repo", Path(tmp) / "data"
        repo.mkdir()
        make_repo(repo, args.files)
        made_ms, gone_ms = [], []
        for run in range(args.runs):
            start = time.perf_counter()
            made = service.create(repo, f"bench{run}", data)
            made_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            service.discard(made)
            gone_ms.append((time.perf_counter() - start) * 1000)
    load = os.getloadavg()[0]
    print(f"{args.files} files, {args.runs} runs, load {load:.1f}:")
    for label, ms in (("create ", made_ms), ("discard", gone_ms)):
        runs = ", ".join(f"{m:.0f}" for m in ms)
        print(f"  {label} median {statistics.median(ms):7.0f} ms  (runs: {runs})")


if __name__ == "__main__":
    main()
