"""The extension brings its server: installed from the ``.vsix`` on a machine with no ``agentls``.

A real VS Code (code-server + Chromium) with workspace trust on, opening an untrusted folder that has
its own ``.venv/bin/agentls`` and ``.vscode/settings.json`` naming it (a script that leaves a marker
file when run). PATH has a Python 3.11+ and no agentls. The offered install makes a venv in the
extension's global storage from the wheel inside the ``.vsix``; pip runs with no index at all
(``PIP_NO_INDEX``, no pip config), its dependencies from a wheelhouse prepared before the editor
starts, so the install itself needs no network. Then a turn completes with the fake model.
Screenshots go to ``tests/vscode/screenshots/install``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core import __version__
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import tool, tools_env
from tests.vscode.build import EXTENSION, vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
# Building the wheel and the .vsix, then a real pip install inside the editor, twice, on two busy cores.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
WORKSPACE_AGENTLS = '#!/bin/sh\necho "$@" >> "$(dirname "$0")/../../ran-workspace-agentls"\nexit 1\n'


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    marker: Path
    mcp_marker: Path

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


def wheelhouse(tmp: Path) -> Path:
    """The wheel's dependencies as files, fetched before the editor runs (pip's cache serves them)."""
    house = tmp / "wheelhouse"
    (wheel,) = (EXTENSION / "server").glob("agentls-*.whl")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "-d", str(house), str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return house


def user_path(tmp: Path) -> str:
    """PATH of a user with a Python 3.11+ (this one's base interpreter) and the editor's tools, no agentls."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    tools_bin = Path(tool("node")).parent
    path = os.pathsep.join([str(bin_dir), str(tools_bin), "/usr/bin", "/bin"])
    assert shutil.which("agentls", path=path) is None
    return path


@pytest.fixture(scope="module")
def install_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    tmp = tmp_path_factory.mktemp("vscode-install")
    package = vsix()
    house = wheelhouse(tmp)
    folder = tmp / "project"
    (folder / ".venv" / "bin").mkdir(parents=True)
    (folder / ".vscode").mkdir()
    fake = folder / ".venv" / "bin" / "agentls"
    fake.write_text(WORKSPACE_AGENTLS)
    fake.chmod(0o755)
    workspace_settings = {"agentls.server.path": ".venv/bin/agentls"}
    (folder / ".vscode" / "settings.json").write_text(json.dumps(workspace_settings))
    (folder / "notes.txt").write_text("hello\n")
    # The workspace's own agentls.json would start an MCP server (a program that leaves a marker) with
    # the server: an untrusted workspace's config is never read (the extension says `untrusted`).
    mcp_marker = folder / "ran-workspace-mcp"
    probe = [sys.executable, "-c", f"open({str(mcp_marker)!r}, 'w').write('ran')"]
    (folder / "agentls.json").write_text(json.dumps({"mcp": {"probe": {"type": "local", "command": probe}}}))
    trace, shots = tmp / "trace.jsonl", tmp / "screenshots"
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(Turn.text("Hello from the installed server."))
        titles.script(Turn.text("Installed"))
        config = {
            "small_model": "titles/t",
            "snapshot": False,
            "provider": {
                name: {
                    "litellm_provider": "openai",
                    "options": {"api_base": server.openai_base, "api_key": "offline"},
                    "models": {"t": {"limit": {"context": context, "output": 100}}},
                }
                # The agent's first request (system prompt and tool specs) is ~9,000 tokens.
                for name, server, context in (("fake", main, 100_000), ("titles", titles, 8_000))
            },
        }
        settings = {
            "agentls.model": "fake/t",
            "agentls.config": config,
        }
        env = {
            "PATH": user_path(tmp),
            "AGENTLS_VSCODE_TRACE": str(trace),
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "OPENAI_API_KEY": "",
            # pip with no index and no config files: only the bundled wheel and the wheelhouse.
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(house),
            "PIP_CONFIG_FILE": os.devnull,
        }
        with code_server(tmp / "vscode", package, settings, env, workspace_trust=True) as cs:
            args = {
                "url": cs.url,
                "folder": str(folder),
                "shots": str(shots),
                "trace": str(trace),
                "marker": str(folder / "ran-workspace-agentls"),
            }
            done = subprocess.run(
                [tool("node"), str(HERE / "e2e_install.mjs"), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=900,
            )
            output = done.stdout + done.stderr
            if done.returncode != 0:
                output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
                if trace.is_file():
                    output += "\ntrace:\n" + trace.read_text()[-4000:]
    result: dict[str, Any] = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    target = HERE / "screenshots" / "install"
    shutil.rmtree(target, ignore_errors=True)
    if shots.is_dir():
        shutil.copytree(shots, target)
    target.mkdir(parents=True, exist_ok=True)
    (target / "driver.log").write_text(output)
    return Run(result, output, folder / "ran-workspace-agentls", mcp_marker)


def test_the_install_is_offered_and_the_untrusted_workspaces_agentls_never_runs(install_run: Run) -> None:
    r = install_run.phase("offered")
    assert r["activated"]["trusted"] is False and r["banner"], r
    assert f"Install agentls {__version__}" in r["offer"] and "Python 3.11" in r["offer"], r["offer"]
    assert r["markerAfter"] is False


def test_install_from_the_bundled_wheel_offline_then_the_server_starts(install_run: Run) -> None:
    r = install_run.phase("installed")
    assert r["installed"]["wheel"] == f"agentls-{__version__}-py3-none-any.whl"
    assert r["installed"]["extension"] == __version__
    assert r["install"]["version"].startswith("3.1"), r["install"]
    assert f"installed agentls {__version__}" in r["done"]
    # pip looked only at the wheelhouse: no index at all (PIP_NO_INDEX reached it through VS Code).
    pip = "\n".join(step["head"] for step in r["steps"])
    assert "Looking in links:" in pip and "Looking in indexes" not in pip, pip
    assert "/globalStorage/" in r["installed"]["executable"], r["installed"]
    assert r["markerAfter"] is False


def test_a_turn_completes_through_the_installed_server(install_run: Run) -> None:
    r = install_run.phase("turn")
    assert "Hello from the installed server." in r["answer"]


def test_the_untrusted_workspaces_own_config_is_not_read_by_the_installed_server(install_run: Run) -> None:
    install_run.phase("turn")
    # The server answered a turn (so its tools, MCP servers' included, were listed) and was
    # restarted once ("updated"), both in the untrusted workspace: its agentls.json's MCP never ran.
    assert not install_run.mcp_marker.exists()


def test_a_venv_of_another_extension_version_gets_this_versions_wheel(install_run: Run) -> None:
    r = install_run.phase("updated")
    assert r["stale"] == 1 and r["updates"] == 1
    assert r["freshInstalls"] == 1  # updated in place: the venv and its dependencies stay
    assert r["stampAfter"]["extension"] == __version__ != "0.0.1"


def test_once_trusted_the_workspaces_own_server_setting_is_used(install_run: Run) -> None:
    r = install_run.phase("trusted")
    # The workspace's .vscode/settings.json names its own script (a wrapper that mentions agentls):
    # started now, as `serve`, and it exits (the untrusted phases above never ran it). Granting trust
    # also changes the effective settings: still one restart, one run of it, one failure shown.
    assert r["marker"] == "serve"
    assert r["failedStarts"] == 1, r
    said = "/project/.venv/bin/agentls serve) did not start: it exited before answering."
    assert said in r["error"], r["error"]
    # Said once, by the extension: not also by the language client's own popup.
    assert not [n for n in r["notifications"] if "couldn't create connection" in n], r["notifications"]
