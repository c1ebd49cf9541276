"""The real editors and browsers the tests drive: ``scripts/tools`` installs them outside the checkout."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def tools_env() -> dict[str, str]:
    """``os.environ`` with nvim, node 24, npm, code-server first on PATH (installing what is missing)."""
    done = subprocess.run([str(ROOT / "scripts" / "tools")], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"scripts/tools could not install the test tools:\n{done.stderr[-4000:]}")
    env_file = done.stdout.strip().splitlines()[-1]
    dumped = subprocess.run(
        ["bash", "-c", f'. "{env_file}" && env -0'], capture_output=True, check=True
    ).stdout.decode()
    return dict(item.split("=", 1) for item in dumped.split("\0") if "=" in item)


def tool(name: str) -> str:
    """The absolute path of a cached tool (``nvim``, ``node``, ``npm``, ``code-server``, ``emacs``)."""
    for directory in tools_env()["PATH"].split(os.pathsep):
        candidate = Path(directory) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise RuntimeError(f"{name} is not installed (scripts/tools installs it)")


def build_lock_path(root: Path = ROOT) -> Path:
    """The lock file of one checkout's builds (outside it, named by its path)."""
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"agentls-build-{digest}.lock"


@contextmanager
def source_build_lock(root: Path = ROOT) -> Iterator[None]:
    """Held while a build writes into the checkout: setuptools' ``build/`` and ``agentls.egg-info``,
    the extension's ``server/`` wheel and ``dist/``. The editors tier runs suites at once (the
    vscode suite's ``.vsix`` beside the package suite's sdist and wheel), so two builds of one
    checkout take turns; other checkouts have locks of their own."""
    with build_lock_path(root).open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
