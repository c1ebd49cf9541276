"""Fixtures that run ``agentls acp`` under a client built on the official ACP TypeScript SDK.

The client (``client.mjs``) runs in Node 24 from ``scripts/tools``; the SDK is the copy that
``scripts/tools`` installs in ``$AGENTLS_NODE_MODULES``. Node resolves ES module imports only
from a ``node_modules`` beside the script, so the script is run from a folder that links it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.project_trust import store as trust_store
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests import prespawn
from tests.tools import tools_env

HERE = Path(__file__).resolve().parent
AGENT = [sys.executable, "-m", "acp_server"]  # cold: for a test about the process itself
CLIENT_TIMEOUT = 60.0


@dataclass
class Run:
    """What the client saw: its results, every message in order, its failure, the agent's exit code."""

    results: dict[str, Any]
    log: list[dict[str, Any]]
    failure: dict[str, Any] | None
    agent_exit: int | None
    stderr: str = ""
    kinds: list[str] = field(default_factory=list)

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        """``session/update`` payloads, optionally of one ``sessionUpdate`` kind."""
        found = [e["update"] for e in self.log if e["kind"] == "update"]
        return [u for u in found if kind is None or u["sessionUpdate"] == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        """The concatenated text of the chunks of one kind."""
        return "".join(u["content"]["text"] for u in self.updates(kind))


@dataclass
class Acp:
    """A project with a fake model, and a way to run the client against it."""

    project: Path
    data: Path
    model: FakeModelServer
    workdir: Path

    async def run(self, scenario: str, **env: str) -> Run:
        """Run one client scenario to its end (the client closes the agent's stdin when done)."""
        full = {
            **tools_env(),
            "AGENT_CMD": json.dumps(
                prespawn.command("acp_server", "--data-dir", str(self.data), "--log-level", "INFO")
            ),
            "PROJECT": str(self.project),
            "AGENTLS_CONFIG_DIR": str(self.data / "config"),
            "XDG_CONFIG_HOME": str(self.data / "xdg"),
            "PYTHONPATH": str(HERE.parent.parent),
            **env,
        }
        proc = await asyncio.create_subprocess_exec(
            "node",
            str(self.workdir / "client.mjs"),
            scenario,
            env=full,
            cwd=self.workdir,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), CLIENT_TIMEOUT)
        except TimeoutError:
            proc.kill()
            out, err = await proc.communicate()
            raise AssertionError(f"the ACP client hung:\n{err.decode()[-6000:]}") from None
        stderr = err.decode()
        assert proc.returncode == 0, f"the ACP client failed ({proc.returncode}):\n{stderr[-6000:]}"
        lines = out.decode().strip().splitlines()
        assert lines, f"the ACP client printed nothing:\n{stderr[-6000:]}"
        data = json.loads(lines[-1])
        run = Run(data["results"], data["log"], data["failure"], data["agentExit"], stderr)
        run.kinds = [e["kind"] for e in run.log]
        return run


@pytest.fixture
def title_model(title_model: FakeModelServer) -> FakeModelServer:
    """The shared small model (tests/conftest.py), answering twenty titles."""
    title_model.script(*[Turn.text("A title") for _ in range(20)])
    return title_model


@pytest.fixture
def node_workdir(tmp_path: Path) -> Path:
    env = tools_env()
    modules = env.get("AGENTLS_NODE_MODULES", "")
    sdk = Path(modules) / "@agentclientprotocol" / "sdk"
    if not sdk.is_dir():
        raise AssertionError(
            f"@agentclientprotocol/sdk is not in {modules!r}: run scripts/tools to install it"
        )
    if shutil.which("node", path=env["PATH"]) is None:
        raise AssertionError("node is not installed: run scripts/tools")
    workdir = tmp_path / "client"
    workdir.mkdir()
    shutil.copy(HERE / "client.mjs", workdir / "client.mjs")
    os.symlink(modules, workdir / "node_modules")
    return workdir


@pytest.fixture
def acp(tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, node_workdir: Path) -> Acp:
    project = tmp_path / "project"
    project.mkdir()
    (project / "hello.py").write_text("print('hello')\n")
    config = fake_model_config(
        model,
        title_model,
        retry={"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 2},
        permission={"edit": "ask", "bash": "ask"},
    )
    (project / "agentls.json").write_text(json.dumps(config))
    # The user trusted this project before (agentls trust add): its agentls.json holds the model.
    # tests/acp/test_trust.py is about a project not trusted yet.
    trust_store.add(tmp_path / "data", project)
    return Acp(project=project, data=tmp_path / "data", model=model, workdir=node_workdir)
