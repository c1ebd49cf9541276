"""``:AgentlsInstall`` in a real Neovim: the plugin loaded from a local clone, as a plugin manager
would put it, installs the server from that clone into a venv of its own and a turn runs through it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from demo.fake_script import Turn
from tests.nvim.harness import REPO, SPECS, Nvim
from tests.tools import tool

pytestmark = pytest.mark.slow


def clone(to: Path) -> Path:
    """The repository's files as they are now (tracked and new, not ignored): a local clone."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    return to


def test_agentls_install_gives_a_working_server_from_the_plugins_checkout(nvim: Nvim, tmp_path: Path) -> None:
    checkout = clone(tmp_path / "agentls")
    nvim.model.script(Turn.text("Hi from the installed server."))
    # No agentls on PATH and no .venv in the project: only Neovim and the system's Python 3.
    path = f"{Path(tool('nvim')).parent}:/usr/bin:/bin"
    env = nvim.env(
        PATH=path,
        EXPECTED_SOURCE=str(checkout),
        PIP_CACHE_DIR=os.path.expanduser("~/.cache/pip"),  # the machine's pip cache: no re-downloads
    )
    plugin = checkout / "editors" / "nvim"
    done = subprocess.run(
        [
            tool("nvim"),
            "--headless",
            "--clean",
            "--cmd",
            f"set rtp^={plugin}",
            "-l",
            str(SPECS / "install.lua"),
        ],
        cwd=nvim.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    installed = nvim.home / "share" / "nvim" / "agentls" / "venv" / "bin" / "agentls"
    assert installed.is_file()
    assert nvim.model.pending == 0


def test_agentls_install_without_python_says_so_once(nvim: Nvim) -> None:
    # PATH has Neovim and nothing else: no python3 at all.
    nvim.run("install_no_python.lua", PATH=str(Path(tool("nvim")).parent)).check()
