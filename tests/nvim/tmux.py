"""An interactive Neovim in tmux, for what a headless one cannot show: typed-ahead keys, redraws,
hit-enter prompts. Keys go in with ``send-keys``; what the user sees comes back with ``capture-pane``;
Neovim's state is read over its ``--listen`` socket (``nvim --server … --remote-expr``).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.nvim.harness import PLUGIN, SPECS, Nvim
from tests.tmux import Terminal
from tests.tools import tool

INIT = SPECS / "interactive_init.lua"


@dataclass
class Screen:
    """One Neovim in a terminal of its own, plus its ``--listen`` socket for reading its state."""

    terminal: Terminal
    listen: Path
    nvim: Nvim

    def keys(self, *keys: str, literal: bool = False) -> None:
        """Type ``keys`` (tmux key names, e.g. ``Enter``, ``Escape``, ``C-s``; or text with ``literal``)."""
        self.terminal.send(*keys, literal=literal)

    def text(self) -> str:
        """What the user sees now."""
        return self.terminal.screen()

    def wait(self, cond: Callable[[str], bool], what: str, timeout: float = 20.0) -> str:
        """Wait until ``cond(screen)`` holds; the screen then, or fail with the last one."""
        return self.terminal.wait(cond, timeout, what)

    def wait_lua(self, expr: str, what: str, timeout: float = 20.0) -> None:
        """Wait until the Lua expression ``expr`` is true in the Neovim, asking again whenever Neovim
        draws something (a change of its state shows on the screen)."""
        deadline = time.monotonic() + timeout
        while self.lua(f"({expr}) and 'yes' or 'no'") != "yes":
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text()}")
            self.terminal.until_output(remaining)

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
    plugin: Path = PLUGIN,
) -> Iterator[Screen]:
    """Start Neovim with the plugin in tmux, in the project: ``setup(options)`` (the harness's by
    default), with the harness's environment and ``env``; ``plugin``: another copy of the plugin
    (a benchmark's build to compare with)."""
    listen = nvim.home / "nvim.sock"
    environ = nvim.env(TERM="screen-256color", **(env or {}))
    if options is not None:
        environ["AGENTLS_TEST_CONFIG"] = json.dumps(options)
    command = [tool("nvim"), "--clean", "--listen", str(listen), "--cmd", f"set rtp^={plugin}"]
    command += ["-u", str(INIT), *files]
    exports = [f"{k}={v}" for k, v in environ.items()]
    # `env -i`: Neovim sees the harness's environment only, not the tmux server's.
    terminal = Terminal(["env", "-i", *exports, *command], {}, nvim.project, width, height)
    screen = Screen(terminal, listen, nvim)
    try:
        screen.wait(lambda _: listen.exists(), "Neovim to start")
        yield screen
    finally:
        terminal.close()
