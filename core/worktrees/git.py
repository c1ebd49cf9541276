"""Running git for the worktree service: one call, its output, and an error that says what failed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from core.errors import InvalidInputError

GIT_TIMEOUT = 120.0


class GitError(InvalidInputError):
    """A git command failed: the message carries git's own words."""


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd`` (no pager, no prompts); GitError when it fails and ``check``."""
    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
            env={**_base_env(), **env},
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed: worktree sessions need it") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {' '.join(args)} did not finish within {GIT_TIMEOUT:g} s") from exc
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {said[-1] if said else f'exit {done.returncode}'}")
    return done


def out(cwd: Path, *args: str) -> str:
    """The stripped standard output of a git command that must succeed."""
    return git(cwd, *args).stdout.strip()


def _base_env() -> dict[str, str]:
    import os

    return dict(os.environ)
