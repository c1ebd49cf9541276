"""Running git against the snapshot object store, isolated from the project's own repository and config."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from pathlib import Path

from core.errors import StorageError
from core.record import record

log = logging.getLogger(__name__)

# Options that override anything a repository or user config could set: line endings must be stored
# byte for byte, no fsmonitor daemon or hook may run, and no background gc may start under us.
_ISOLATION = (
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    f"core.hooksPath={os.devnull}",
    "-c",
    "core.quotePath=false",
    "-c",
    "core.symlinks=true",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
    "-c",
    "advice.addEmbeddedRepo=false",
)


def find_git() -> str | None:
    """The git executable on PATH, or None when the machine has none."""
    return shutil.which("git")


@record
class GitResult:
    """Exit status and raw output of one git call."""

    code: int
    stdout: bytes
    stderr: bytes


class Git:
    """Runs git with ``--git-dir`` in the snapshot store and ``--work-tree`` the project."""

    def __init__(self, executable: str, git_dir: Path, work_tree: Path) -> None:
        self.executable = executable
        self.git_dir = git_dir
        self.work_tree = work_tree
        self._env = self._build_env()

    def _build_env(self) -> dict[str, str]:
        # Inherited GIT_* variables (a hook's GIT_DIR, GIT_INDEX_FILE...) would point git at the
        # project's repository; drop them all and set our own.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            {
                "GIT_DIR": str(self.git_dir),
                "GIT_WORK_TREE": str(self.work_tree),
                "GIT_INDEX_FILE": str(self.git_dir / "index"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_LITERAL_PATHSPECS": "1",
                "GIT_OPTIONAL_LOCKS": "0",
                "LC_ALL": "C",
            }
        )
        return env

    async def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> GitResult:
        """Run one git command; raise StorageError on a non-zero exit when ``check``."""
        proc = await asyncio.create_subprocess_exec(
            self.executable,
            *_ISOLATION,
            *args,
            cwd=self.work_tree,
            env=self._env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate(stdin)
        code = proc.returncode if proc.returncode is not None else -1
        if check and code != 0:
            message = err.decode("utf-8", errors="replace").strip()
            raise StorageError(f"snapshot store: git {args[0]} failed ({code}): {message}")
        return GitResult(code, out, err)

    async def text(self, *args: str, stdin: bytes | None = None) -> str:
        """Run a command and return its stdout as stripped text."""
        result = await self.run(*args, stdin=stdin)
        return result.stdout.decode("utf-8", errors="surrogateescape").strip()


def split_z(data: bytes) -> list[str]:
    """NUL-separated git output as paths (undecodable bytes kept via surrogateescape)."""
    return [item.decode("utf-8", errors="surrogateescape") for item in data.split(b"\0") if item]
