"""The MCP servers view of the core: each configured server running (with its tool, resource and
prompt counts), disabled, or failed with its last error (at start, or a crash mid-session — after
which the session goes on without its tools; the last lines it wrote to stderr say why); enable
and disable written to the user's config (mode 600) and applied; restart bringing a crashed server
back."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from core.errors import NotFoundError
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def servers() -> dict[str, Any]:
    return {
        "docs": {"type": "local", "command": [sys.executable, str(SERVER)]},
        "off": {"type": "local", "command": [sys.executable, str(SERVER)], "enabled": False},
        "broken": {"type": "local", "command": [str(SERVER.parent / "no-such-server")]},
    }


def by_name(listed: list[Any]) -> dict[str, Any]:
    return {s.name: s for s in listed}


async def test_each_server_is_running_disabled_or_failed_with_why(make_app: AppFactory) -> None:
    app = await make_app(mcp=servers())
    listed = by_name(await app.mcp_servers())
    assert list(listed) == ["docs", "off", "broken"]
    docs = listed["docs"]
    assert (docs.status, docs.tools, docs.resources, docs.prompts, docs.error) == ("running", 2, 4, 3, None)
    assert (listed["off"].status, listed["off"].enabled) == ("disabled", False)
    broken = listed["broken"]
    assert broken.status == "failed" and "MCP server 'broken' skipped" in (broken.error or ""), broken
    assert "its stderr:" in (broken.error or "") and "No such file or directory" in (broken.error or ""), (
        broken
    )


async def test_a_crashed_server_is_shown_failed_and_the_session_goes_on(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(mcp=servers(), permission={"docs_*": "allow"})
    session = await app.create_session()
    model.script(Turn.tool_call("docs_crash", {}), Turn.text("It crashed."), Turn.text("Still here."))
    await app.prompt(session.id, [TextInput(text="crash it")])
    docs = by_name(await app.mcp_servers())["docs"]
    assert docs.status == "failed" and docs.error, docs
    assert "it stopped during a call of crash" in docs.error and "docs server: out of memory" in docs.error
    assert docs.tools == 0
    await app.prompt(session.id, [TextInput(text="and now?")])  # the session goes on
    assert not any(t["function"]["name"].startswith("docs_") for t in model.requests[-1].tools)
    # Restarted at the user's word: running again, its tools back.
    restarted = by_name(await app.mcp_set("docs", "restart"))["docs"]
    assert (restarted.status, restarted.tools) == ("running", 2)


async def test_disable_and_enable_are_written_to_the_users_config_and_applied(
    make_app: AppFactory, tmp_path: Path
) -> None:
    app = await make_app(mcp=servers())
    disabled = by_name(await app.mcp_set("docs", "disable"))["docs"]
    assert (disabled.status, disabled.enabled) == ("disabled", False)
    user_file = tmp_path / "config" / "agentls.json"
    assert json.loads(user_file.read_text()) == {"mcp": {"docs": {"enabled": False}}}
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o600
    assert not [c for c in (await app.commands()).commands if c.kind == "mcp"]  # its prompts went too
    enabled = by_name(await app.mcp_set("docs", "enable"))["docs"]
    assert (enabled.status, enabled.tools) == ("running", 2)
    with pytest.raises(NotFoundError, match="no MCP server 'nope' is configured"):
        await app.mcp_set("nope", "disable")


async def test_a_toggle_for_a_server_no_layer_defines_is_ignored(
    make_app: AppFactory, tmp_path: Path
) -> None:
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "agentls.json").write_text(json.dumps({"mcp": {"elsewhere": {"enabled": False}}}))
    app = await make_app(mcp=servers())
    assert [s.name for s in await app.mcp_servers()] == ["docs", "off", "broken"]
