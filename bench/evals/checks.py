"""What the checks look at: the repository after the run (tests, files, git) and the run's calls."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.evals.model import Run, git

EDIT_TOOLS = frozenset({"edit", "write", "apply_patch"})


def tests_fail(root: Path) -> str | None:
    """None when the repository's unit tests pass, else their last lines."""
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-q"], cwd=root, capture_output=True, text=True, timeout=120
    )
    return None if done.returncode == 0 else "tests fail: " + done.stderr.strip()[-300:]


def changed(root: Path) -> list[str]:
    """Files the run changed, added or removed (git status against the start commit, untracked too)."""
    lines = git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:] for line in lines)


def committed(root: Path, run: Run) -> bool:
    """Whether a commit was made after the start."""
    return git(root, "rev-parse", "HEAD").strip() != run.head_before


def edits(run: Run) -> list[str]:
    """The files the run's edit tools were called on."""
    return [str(c.input.get("filePath", "patch")) for c in run.calls if c.tool in EDIT_TOOLS]


def text(root: Path, name: str) -> str | None:
    path = root / name
    return path.read_text() if path.exists() else None


def first(*reasons: str | None) -> str | None:
    """The first failure among ``reasons`` (None when all passed)."""
    return next((r for r in reasons if r), None)
