"""An interactive Neovim in tmux, for what a headless one cannot show: typed-ahead keys, redraws,
hit-enter prompts. Keys go in with ``send-keys``; what the user sees comes back with ``capture-pane``;
Neovim's state is read over its ``--listen`` socket (``nvim --server … --remote-expr``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.nvim.harness import PLUGIN, SPECS, Nvim
from tests.tools import tool

INIT = SPECS / "interactive_init.lua"


@dataclass
class Screen:
    """One Neovim in one tmux server of its own (its own socket: nothing shared with the machine's)."""

    socket: str
    listen: Path
    nvim: Nvim

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        """Type ``keys`` (tmux key names, e.g. ``Enter``, ``Escape``, ``C-s``; or text with ``literal``)."""
        self.tmux("send-keys", "-t", "nvim", *(["-l"] if literal else []), *keys)

    def text(self) -> str:
        """What the user sees now."""
        return self.tmux("capture-pane", "-p", "-t", "nvim")

    def wait(self, cond: Callable[[str], bool], what: str, timeout: float = 20.0) -> str:
        """Wait until ``cond(screen)`` holds; the screen then, or fail with the last one."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.text()
            if cond(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(0.05)  # polling the screen for a condition, not a wait for time to pass

    def wait_lua(self, expr: str, what: str, timeout: float = 20.0) -> None:
        """Wait until the Lua expression ``expr`` is true in the Neovim."""
        deadline = time.monotonic() + timeout
        while self.lua(f"({expr}) and 'yes' or 'no'") != "yes":
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text()}")
            time.sleep(0.05)  # polling a condition

    def lua(self, expr: str) -> str:
        """Evaluate the Lua expression ``expr`` in the Neovim (its result as a string)."""
        done = subprocess.run(
            [tool("nvim"), "--server", str(self.listen), "--remote-expr", f"luaeval({expr!r})"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
            env=self.nvim.env(),
        )
        return done.stdout


@contextmanager
def interactive(
    nvim: Nvim,
    *,
    width: int = 120,
    height: int = 40,
    files: tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Screen]:
    """Start Neovim with the plugin in tmux, in the project: ``setup(options)`` (the harness's by
    default), with the harness's environment and ``env``."""
    if shutil.which("tmux") is None:
        raise AssertionError("tmux is missing: apt-get install -y tmux")
    socket = str(nvim.home / "tmux.sock")  # a tmux server of its own, in the test's directory
    listen = nvim.home / "nvim.sock"
    environ = nvim.env(TERM="screen-256color", **(env or {}))
    if options is not None:
        environ["AGENTLS_TEST_CONFIG"] = json.dumps(options)
    command = [tool("nvim"), "--clean", "--listen", str(listen), "--cmd", f"set rtp^={PLUGIN}"]
    command += ["-u", str(INIT), *files]
    exports = [f"{k}={v}" for k, v in environ.items()]
    size = ["-x", str(width), "-y", str(height)]
    session = ["new-session", "-d", "-s", "nvim", *size, "-c", str(nvim.project)]
    tmux = ["tmux", "-S", socket, "-f", "/dev/null"]
    subprocess.run([*tmux, *session, "env", "-i", *exports, *command], check=True)
    screen = Screen(socket, listen, nvim)
    try:
        screen.wait(lambda _: listen.exists(), "Neovim to start")
        yield screen
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], check=False, capture_output=True)
