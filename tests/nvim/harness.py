"""Run a Lua spec in a real headless Neovim with the plugin, against the real ``agentls serve``.

The spec (``tests/nvim/specs/*.lua``, run by ``nvim -l``) drives the plugin as a user would and
fails by raising an error; its settings come from the environment: ``AGENTLS_TEST_CONFIG`` (the
``setup()`` options as JSON: the server command and the fake model config). The model is the
scripted fake server, running in this process.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from tests.tools import tool, tools_env

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim"
SPECS = Path(__file__).resolve().parent / "specs"
AGENTLS = REPO / ".venv" / "bin" / "agentls"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    lsp_log: str
    server_log: str

    def check(self) -> Run:
        """Fail with everything Neovim and the server said unless the spec passed cleanly."""
        report = (
            f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}\n"
            f"--- lsp.log\n{self.lsp_log[-4000:]}\n--- server log\n{self.server_log[-4000:]}"
        )
        assert self.returncode == 0, report
        assert "Error" not in self.stderr and "E5108" not in self.stderr, report
        assert "[ERROR]" not in self.lsp_log, report
        return self


@dataclass
class Nvim:
    """One project, one data directory, and the fake models: start Neovim on a spec, as often as needed."""

    home: Path
    project: Path
    model: FakeModelServer
    titles: FakeModelServer
    extra_config: dict[str, Any]

    def trust_project(self) -> None:
        """The user has trusted the project (:AgentlsTrust → Trust): its own command files are used."""
        store = self.home / "state" / "nvim" / "agentls" / "trust.json"
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_text(json.dumps({str(self.project.resolve()): "trusted"}))

    def options(self) -> dict[str, Any]:
        config = fake_model_config(
            self.model,
            self.titles,
            retry={"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 2},
            **self.extra_config,
        )
        return {"cmd": [str(AGENTLS), "serve"], "config": config, "log_file": str(self.home / "server.log")}

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(tools_env())
        for var in ("NVIM", "NVIM_LISTEN_ADDRESS", "VIMINIT", "MYVIMRC"):
            env.pop(var, None)
        env.update(
            {
                "HOME": str(self.home),
                "XDG_CONFIG_HOME": str(self.home / "config"),
                "XDG_STATE_HOME": str(self.home / "state"),
                "XDG_DATA_HOME": str(self.home / "share"),
                "XDG_CACHE_HOME": str(self.home / "cache"),
                "AGENTLS_DATA_DIR": str(self.home / "agentls-data"),
                "AGENTLS_CONFIG_DIR": str(self.home / "agentls-config"),
                "AGENTLS_TEST_CONFIG": json.dumps(self.options()),
                "AGENTLS_TEST_HELPERS": str(SPECS / "helpers.lua"),
            }
        )
        env.update(extra)
        return env

    def run(self, spec: str, timeout: float = 60.0, **env: str) -> Run:
        """Run ``specs/<spec>`` with ``nvim -l`` in the project directory."""
        done = subprocess.run(
            [tool("nvim"), "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}", "-l", str(SPECS / spec)],
            cwd=self.project,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        lsp_log = self.home / "state" / "nvim" / "lsp.log"
        server_log = self.home / "server.log"
        return Run(
            done.returncode,
            done.stdout,
            done.stderr,
            lsp_log.read_text() if lsp_log.exists() else "",
            server_log.read_text() if server_log.exists() else "",
        )
