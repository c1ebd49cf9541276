"""Provider keys agentls resolved for itself stay out of the environment of bash and MCP children."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from core.config.schema import Config
from core.llm import secrets
from core.llm.model import resolve_model
from core.tools.bash import BashTool
from core.tools.context import ToolContext
from core.tools.mcp import McpManager
from core.tools.runner import run_tool

ECHO_SERVER = Path(__file__).parents[2] / "fixtures" / "mcp" / "echo_server.py"


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no key resolved (the registry is per process)."""
    monkeypatch.setattr(secrets, "_names", set())
    monkeypatch.setattr(secrets, "_values", set())
    monkeypatch.setattr(secrets, "_passed", set())
    monkeypatch.setenv("AGENTLS_TEST_PLAIN", "plain-value")


async def bash_env(ctx: ToolContext) -> str:
    return (await run_tool(BashTool(), {"command": "env"}, ctx)).output


def resolve(provider: dict[str, Any], ref: str) -> None:
    resolve_model(Config.model_validate({"provider": provider}), ref)


async def test_a_key_read_from_the_providers_variable_is_not_passed_to_bash(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-unused-456")
    resolve({}, "openai/gpt-4o")
    env = await bash_env(ctx)
    assert "sk-from-env-123" not in env and "OPENAI_API_KEY" not in env
    assert "AGENTLS_TEST_PLAIN=plain-value" in env
    assert "sk-ant-unused-456" in env  # agentls never used this one: it is the user's business


async def test_a_configured_key_is_hidden_under_whatever_variable_holds_it(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_PROXY_TOKEN", "tok-789")  # e.g. written as "{env:MY_PROXY_TOKEN}" in the config
    options = {"api_base": "http://127.0.0.1:9/v1", "api_key": "tok-789"}
    resolve({"proxy": {"litellm_provider": "openai", "options": options}}, "proxy/m")
    assert "tok-789" not in await bash_env(ctx)


async def test_the_config_can_pass_a_key_to_tools(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-shared-123")
    resolve({"openai": {"options": {"pass_key_to_tools": True}}}, "openai/gpt-4o")
    assert "OPENAI_API_KEY=sk-shared-123" in await bash_env(ctx)


async def test_mcp_servers_do_not_inherit_the_key_either(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    resolve({}, "openai/gpt-4o")
    dump = tmp_path / "mcp-env.txt"
    script = (
        "import os, runpy, sys; "
        f"open({str(dump)!r}, 'w').write('\\n'.join(f'{{k}}={{v}}' for k, v in os.environ.items())); "
        f"sys.argv = [{str(ECHO_SERVER)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    config = Config.model_validate(
        {"mcp": {"probe": {"type": "local", "command": [sys.executable, "-c", script]}}}
    )
    manager = McpManager(config.mcp)
    await manager.start()
    try:
        assert manager.connected == ["probe"], manager.warnings
    finally:
        await manager.close()
    env = dump.read_text()
    assert "PATH=" in env and "sk-from-env-123" not in env
