"""Build the VS Code extension as a user would: ``npm ci``, esbuild, ``vsce package`` into a ``.vsix``."""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from tests.tools import ROOT, tools_env

EXTENSION = ROOT / "editors" / "vscode"


def run(cmd: list[str], cwd: Path = EXTENSION, timeout: float = 300) -> str:
    """Run a command with the test tools on PATH; fail with its output when it fails."""
    done = subprocess.run(cmd, cwd=cwd, env=tools_env(), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
        )
    return done.stdout


def npm_ci() -> None:
    """``npm ci`` from the lock file, skipped when node_modules already matches it."""
    lock = EXTENSION / "package-lock.json"
    stamp = EXTENSION / "node_modules" / ".agentls-lock-sha"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if stamp.is_file() and stamp.read_text() == digest:
        return
    run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"])
    stamp.write_text(digest)


@functools.cache
def vsix() -> Path:
    """The packaged extension (built once per test session)."""
    npm_ci()
    run(["node", "esbuild.mjs", "--production"])
    out = EXTENSION / "dist" / "agentls.vsix"
    vsce = str(Path(tools_env()["AGENTLS_NODE_MODULES"]) / ".bin" / "vsce")
    run([vsce, "package", "--allow-missing-repository", "--skip-license", "-o", str(out)])
    return out
