"""The servers view's Log in over the wire (``agent/mcp/set`` action ``login``), against the SDK's
protected server with its own authorization server: listed as needing a login, the server asks the
client to open the authorization page in the browser (``window/showDocument`` with ``external``),
and once the browser comes back the server restarts, logged in; a refused login is said in an
``agent.warning``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from tests.e2e.mcp_oauth_helpers import OAuthServer, approve, oauth_server
from tests.lsp.conftest import Connected, agent_config
from tests.ticks import until, until_async


@pytest.fixture(params=[{}, {"OAUTH_DENY": "1"}], ids=["approved", "denied"])
async def vault(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OAuthServer]:
    async with oauth_server(tmp_path, **request.param) as server:
        yield server


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer, vault: OAuthServer) -> dict[str, Any]:
    mcp = {"vault": {"type": "remote", "url": vault.url}}
    return {"config": agent_config(model, title_model, mcp=mcp)}


async def status(connected: Connected) -> dict[str, Any]:
    [server] = (await connected.call("agent/mcp/list", {}))["servers"]
    return dict(server)


async def test_log_in_from_the_servers_view(
    plugin: Connected, vault: OAuthServer, request: pytest.FixtureRequest
) -> None:
    before = await status(plugin)
    assert (before["status"], before["auth"]) == ("needs-login", "needs-login"), before
    assert "agentls mcp login vault" in before["error"]

    answer = await plugin.call("agent/mcp/set", {"name": "vault", "action": "login"})
    login = answer["login"]
    assert login["opened"] is True and login["url"].startswith(vault.url.removesuffix("/mcp"))
    shown = plugin.client.shown_documents[-1]
    assert (shown.uri, shown.external) == (login["url"], True)
    page = await approve(login["url"])

    if "denied" in request.node.name:
        assert page.status_code == 400
        await until(lambda: plugin.events("agent.warning"), "the warning")
        [warning] = plugin.events("agent.warning")
        told = warning["properties"]
        assert told["kind"] == "mcp" and "access_denied" in told["message"], warning
        assert (await status(plugin))["status"] == "needs-login"
        return
    assert page.status_code == 200

    async def running() -> bool:
        return (await status(plugin))["status"] == "running"

    await until_async(running, "the server restarted, logged in")
    after = await status(plugin)
    assert (after["tools"], after["auth"]) == (1, "logged-in"), after
