"""Build the VS Code extension as a user would: ``npm ci``, esbuild, ``vsce package`` into a ``.vsix``.

The ``.vsix`` carries the agentls wheel built from this checkout (``server/agentls-*.whl``): the
extension installs it into a venv of its own when no ``agentls`` is found (src/install/).
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.tools import ROOT, source_build_lock, tools_env

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


def bundle_wheel() -> Path:
    """Build the agentls wheel into the extension's ``server/`` folder (the only wheel there)."""
    server = EXTENSION / "server"
    server.mkdir(exist_ok=True)
    for old in server.glob("agentls-*.whl"):
        old.unlink()
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(server), str(ROOT)], cwd=ROOT)
    (wheel,) = server.glob("agentls-*.whl")
    return wheel


@functools.cache
def vsix() -> Path:
    """The packaged extension with the agentls wheel inside (built once per test session)."""
    with source_build_lock():  # the wheel is built in this checkout, as the package suite's is
        npm_ci()
        bundle_wheel()
        run(["node", "esbuild.mjs", "--production"])
        out = EXTENSION / "dist" / "agentls.vsix"
        vsce = str(Path(tools_env()["AGENTLS_NODE_MODULES"]) / ".bin" / "vsce")
        # While release.toml names no repository, vsce is told it is missing on purpose (it would ask).
        unpublished = not tomllib.loads((ROOT / "release.toml").read_text())["release"]["repository"]
        run([vsce, "package", *(["--allow-missing-repository"] if unpublished else []), "-o", str(out)])
    return out
