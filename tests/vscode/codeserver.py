"""A real VS Code (code-server 4.139 = VS Code 1.139) in a scratch dir, stopped with its process group."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.tools import tool, tools_env

# Settings that keep a headless VS Code quiet and deterministic (VSCODE-OFFLINE.md).
BASE_SETTINGS: dict[str, Any] = {
    "chat.disableAIFeatures": True,
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "git.enabled": False,
    "files.autoSave": "off",
    "editor.minimap.enabled": False,
    "window.restoreWindows": "none",
}


@dataclass
class CodeServer:
    url: str
    root: Path
    process: subprocess.Popen[bytes]
    log: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _env(root: Path, extra: dict[str, str]) -> dict[str, str]:
    env = dict(tools_env())
    # code-server and Chromium write under XDG dirs whatever --user-data-dir says: keep them in scratch.
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / name.lower())
    # The extension gallery (open-vsx.org by default) is asked for recommendations even with updates
    # off: point it at a closed local port, so the test never looks a host up on the internet.
    closed = "http://127.0.0.1:9"
    env["EXTENSIONS_GALLERY"] = json.dumps({"serviceUrl": f"{closed}/gallery", "itemUrl": f"{closed}/item"})
    env.update(extra)
    return env


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"code-server exited ({process.returncode}):\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        process_wait = max(0.05, min(0.2, deadline - time.monotonic()))
        try:
            process.wait(timeout=process_wait)  # a bounded wait doubles as the poll interval
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError(f"code-server did not answer /healthz within {timeout}s:\n{log.read_text()[-4000:]}")


@contextmanager
def code_server(
    root: Path, vsix: Path, settings: dict[str, Any], env: dict[str, str], *, workspace_trust: bool = False
) -> Iterator[CodeServer]:
    """Install ``vsix`` in a fresh profile under ``root``, start code-server, stop its process group after.

    ``workspace_trust``: VS Code's workspace trust is on, and a folder opens untrusted (restricted mode)
    without the start-up question (``settings`` may say otherwise)."""
    if workspace_trust:
        trust = {"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never"}
        settings = {**trust, **settings}
    data, exts = root / "data", root / "exts"
    (data / "User").mkdir(parents=True, exist_ok=True)
    (data / "User" / "settings.json").write_text(json.dumps({**BASE_SETTINGS, **settings}, indent=2))
    # code-server is a remote setup: the extension host also reads the machine's settings, and at
    # start-up it may read them before the user's; give both the same values.
    (data / "Machine").mkdir(parents=True, exist_ok=True)
    (data / "Machine" / "settings.json").write_text(json.dumps(settings, indent=2))
    config = root / "config.yaml"
    config.write_text("auth: none\ncert: false\n")
    cs = tool("code-server")
    full_env = _env(root, env)
    common = ["--config", str(config), "--user-data-dir", str(data), "--extensions-dir", str(exts)]
    copy_extensions(installed(vsix), exts)
    port = free_port()
    log = root / "code-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                cs,
                *common,
                "--bind-addr",
                f"127.0.0.1:{port}",
                "--auth",
                "none",
                "--disable-telemetry",
                "--disable-update-check",
                *([] if workspace_trust else ["--disable-workspace-trust"]),
                "--disable-getting-started-override",
                "--ignore-last-opened",
            ],
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # setsid: its file watcher, extension hosts and servers share the group
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, log)
        yield CodeServer(url, root, process, log)
    finally:
        stop_group(process)


@dataclass(frozen=True)
class _Package:
    path: Path
    mtime_ns: int
    size: int


def installed(vsix: Path) -> Path:
    """An extensions folder with ``vsix`` installed by code-server itself, made once per package and
    process (the install is most of a code-server start: ~9-12 s here); each code-server gets a
    copy (``copy_extensions``), so no test sees another's extension folder."""
    stat = vsix.stat()
    return _install(_Package(vsix.resolve(), stat.st_mtime_ns, stat.st_size))


@functools.cache
def _install(package: _Package) -> Path:
    root = Path(tempfile.mkdtemp(prefix="agentls-vscode-exts-"))
    atexit.register(shutil.rmtree, root, True)
    exts = root / "exts"
    common = ["--user-data-dir", str(root / "data"), "--extensions-dir", str(exts)]
    done = subprocess.run(
        [tool("code-server"), *common, "--install-extension", str(package.path), "--force"],
        env=_env(root, {}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise AssertionError(f"installing the extension failed:\n{done.stdout}\n{done.stderr}")
    return exts


def copy_extensions(source: Path, target: Path) -> None:
    """Copy an installed extensions folder; its index (``extensions.json``) names each extension's
    folder by absolute path, which is moved to the copy."""
    shutil.copytree(source, target, symlinks=True)
    index = target / "extensions.json"
    if index.is_file():
        # As a JSON string spells each path (the file holds it as fsPath, path and a file:// URI).
        old, new = (json.dumps(str(folder))[1:-1] for folder in (source, target))
        index.write_text(index.read_text().replace(old, new))


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """TERM the process group, then KILL what is left after a grace period."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=10)
