"""`agentls mcp list|enable|disable` as a user runs them (the real CLI in a subprocess, the project's
own agentls.json naming the real SDK stdio server): the list with status, counts and the reason of
a failure; an untrusted project's servers never start; enable/disable written to the user's config
(mode 600) and checked against what holds; an unknown name refused."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from demo.fake_model import FakeModelServer

from .test_cli import agentls, model_env

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def with_servers(project: Path, ran: Path) -> None:
    docs = {"type": "local", "command": [sys.executable, str(SERVER)]}
    # A server that leaves a mark when it starts: an untrusted project's must not.
    marker = {"type": "local", "command": ["sh", "-c", f"touch {ran}; exit 1"], "sandbox": False}
    config = {"mcp": {"docs": docs, "marker": marker}}
    (project / "agentls.json").write_text(json.dumps(config))


async def test_list_shows_each_server_and_why_one_failed(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    with_servers(project, tmp_path / "ran")
    env = model_env(tmp_path, model, title_model)
    code, out, err = await agentls("mcp", "list", "--trust", cwd=project, env=env)
    assert code == 1, err  # a server failed
    lines = out.splitlines()
    assert lines[0].split() == ["docs", "local", "running", "2", "tools,", "4", "resources,", "3", "prompts"]
    assert lines[1].startswith("marker  local   failed    MCP server 'marker' skipped:"), out
    code, out, err = await agentls("mcp", "list", "--json", "--trust", cwd=project, env=env)
    listed = json.loads(out)
    assert [(s["name"], s["status"]) for s in listed] == [("docs", "running"), ("marker", "failed")]


async def test_an_untrusted_projects_servers_never_start(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    with_servers(project, tmp_path / "ran")
    code, out, err = await agentls("mcp", "list", cwd=project, env=model_env(tmp_path, model, title_model))
    assert code == 0, err
    assert "no MCP servers are configured" in out and "not trusted" in err.lower(), (out, err)
    assert not (tmp_path / "ran").exists()


async def test_enable_and_disable_write_the_users_config(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    with_servers(project, tmp_path / "ran")
    env = model_env(tmp_path, model, title_model)
    await agentls("trust", "add", str(project), cwd=project, env=env)
    code, out, err = await agentls("mcp", "disable", "docs", cwd=project, env=env)
    assert code == 0 and out.startswith("docs: disabled"), (out, err)
    user = tmp_path / "config" / "agentls.json"
    assert json.loads(user.read_text()) == {"mcp": {"docs": {"enabled": False}}}
    assert stat.S_IMODE(user.stat().st_mode) == 0o600
    code, out, err = await agentls("mcp", "list", "--json", cwd=project, env=env)
    assert json.loads(out)[0]["status"] == "disabled"
    code, out, err = await agentls("mcp", "enable", "docs", cwd=project, env=env)
    assert code == 0 and json.loads(user.read_text()) == {"mcp": {"docs": {"enabled": True}}}
    code, out, err = await agentls("mcp", "disable", "nope", cwd=project, env=env)
    assert code == 2 and "no MCP server 'nope' is configured here (configured: docs, marker)" in err


async def test_a_project_that_forces_a_server_on_is_said_to_win(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    docs = {"type": "local", "command": [sys.executable, str(SERVER)], "enabled": True}
    (project / "agentls.json").write_text(json.dumps({"mcp": {"docs": docs}}))
    env = model_env(tmp_path, model, title_model)
    await agentls("trust", "add", str(project), cwd=project, env=env)
    code, out, err = await agentls("mcp", "disable", "docs", cwd=project, env=env)
    assert code == 1 and "sets mcp.docs.enabled, which wins" in err, (out, err)
