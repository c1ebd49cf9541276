"""An interactive stock Neovim in a terminal, set up exactly as the README's plugin-less section says.

The user's ``init.lua`` is the README's Lua block itself (so the documented setup is what runs), with
``agentls`` on ``PATH`` being the real server; the test only adds a probe that notes when the client
attached, and a ``--listen`` socket to read buffer state without touching the screen.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.clients import READS_TYPEAHEAD
from tests.lsp.editor import REPO
from tests.stock import harness as h
from tests.tmux import Terminal
from tests.tools import tool, tools_env

README = REPO / "README.md"
STOCK_SECTION = "## Any LSP editor, without a plugin"
INLIST_FOOTER = r"Type number and <Enter>"
HIT_ENTER = r"Press ENTER or type command to continue"

PROBE = """
-- test probe (not part of the user's setup): note when the client attached
vim.api.nvim_create_autocmd('LspAttach', { callback = function()
  vim.fn.writefile({ 'attached' }, vim.env.AGENTLS_TEST_PROBE)
end })
"""


def readme_block(language: str) -> str:
    """The first ``language`` code block of the README's stock-client section."""
    text = README.read_text()
    section = text.split(STOCK_SECTION, 1)[1].split("\n## ", 1)[0]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"the README's stock section has no {language} block"
    return match.group(1)


def agentls_on_path(bin_dir: Path, project: h.Project) -> None:
    """An ``agentls`` command that is the real server of this checkout (logging to the project log)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "agentls"
    script.write_text(
        "#!/bin/sh\n"
        '[ "$1" = serve ] && shift\n'
        f'exec "{sys.executable}" -m lsp_server --log-level INFO --log-file "{project.log}" "$@"\n'
    )
    script.chmod(0o755)


@dataclass
class Nvim:
    """The terminal Neovim runs in, and its RPC socket for reading state."""

    term: Terminal
    socket: Path
    probe: Path
    nvim: str

    def expr(self, expression: str) -> Any:
        """Evaluate a Vimscript expression in the running Neovim (JSON-encoded through the socket)."""
        done = subprocess.run(
            [self.nvim, "--server", str(self.socket), "--remote-expr", f"json_encode({expression})"],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
        return json.loads(done.stdout)

    def buffer(self, path: Path) -> str:
        """The text of the buffer of ``path`` (a trailing newline per line, like the file)."""
        lines: list[str] = self.expr(f"getbufline(bufnr('{path}'), 1, '$')")
        return "".join(line + "\n" for line in lines)

    def modified(self, path: Path) -> bool:
        return bool(self.expr(f"getbufvar(bufnr('{path}'), '&modified')"))

    def messages(self) -> str:
        """``:messages`` as text, read without drawing anything."""
        value: str = self.expr("execute('messages')")
        return value

    def choose(self, number: str) -> None:
        """Answer the dialog on screen as a person does, having read it first.

        The pause is the behaviour under test, not a wait for something to happen: the server takes
        an answer typed sooner than ``READS_TYPEAHEAD`` after it asked as typed ahead, and asks again.
        """
        time.sleep(READS_TYPEAHEAD)
        self.term.type(number)
        self.term.send("Enter")

    def wait_attached(self, timeout: float = 30) -> None:
        self.term.wait(lambda _: self.probe.exists(), timeout, "the agentls client to attach")


@contextmanager
def stock_nvim(tmp_path: Path, project: h.Project, config: dict[str, Any], file: Path) -> Iterator[Nvim]:
    """Neovim with the README's setup on ``file`` in a 120x40 terminal; the agent's config in the project."""
    (project.root / "agentls.json").write_text(json.dumps(config))
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)  # the README's root marker
    bin_dir = tmp_path / "bin"
    agentls_on_path(bin_dir, project)
    init = tmp_path / "init.lua"
    init.write_text(readme_block("lua") + PROBE)
    socket, probe = tmp_path / "nvim.sock", tmp_path / "attached"
    base = h.editor_env(project)
    env = {
        "PATH": f"{bin_dir}:{tools_env()['PATH']}",
        "HOME": base["HOME"],
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "AGENTLS_DATA_DIR": base["AGENTLS_DATA_DIR"],
        "AGENTLS_CONFIG_DIR": base["AGENTLS_CONFIG_DIR"],
        "PYTHONPATH": base["PYTHONPATH"],
        "AGENTLS_TEST_PROBE": str(probe),
        "LANG": "C.UTF-8",
    }
    nvim = tool("nvim")
    command = [nvim, "-n", "-i", "NONE", "-u", str(init), "--listen", str(socket), str(file)]
    term = Terminal(command, env, project.root)
    try:
        yield Nvim(term, socket, probe, nvim)
    finally:
        term.close()
