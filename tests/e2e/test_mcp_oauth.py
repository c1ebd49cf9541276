"""OAuth for remote MCP servers, against the SDK's protected server with its own authorization
server on 127.0.0.1: a session meets a server it has no token for and shows it as needing a login
(and goes on); the login (dynamic registration, PKCE S256, the loopback redirect) stores the tokens
owner-only, keyed by URL; the server then runs and its tool works in a real turn; an expired access
token is refreshed with the refresh grant, not a new login; logout deletes the tokens. A forged
redirect, a refused consent and a browser that never comes back fail clearly and store nothing; a
server that needs no login says so."""

from __future__ import annotations

import json
import socket
import stat
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from core.config.schema import McpRemote
from core.message.prompt_input import TextInput
from core.tools.mcp_auth import login
from core.tools.mcp_redirect import LoginError
from core.tools.mcp_tokens import forget, token_file
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.ticks import until

from .conftest import AppFactory
from .mcp_oauth_helpers import Browser, OAuthServer, ignore, oauth_server


def remote(url: str) -> McpRemote:
    return McpRemote(type="remote", url=url)


def stored() -> dict[str, Any]:
    path = token_file()
    return json.loads(path.read_text()) if path.exists() else {}


def vault(server: OAuthServer) -> dict[str, Any]:
    return {"vault": {"type": "remote", "url": server.url}}


async def test_a_session_shows_needs_login_then_the_login_lets_a_turn_use_the_tool(
    make_app: AppFactory, model: FakeModelServer, tmp_path: Path
) -> None:
    async with oauth_server(tmp_path) as server:
        app = await make_app(mcp=vault(server), permission={"vault_*": "allow"})
        [status] = await app.mcp_servers()
        assert (status.status, status.auth) == ("needs-login", "needs-login"), status
        assert "run `agentls mcp login vault`" in (status.error or "")
        session = await app.create_session()
        model.script(Turn.text("Hello."))
        await app.prompt(session.id, [TextInput(text="hi")])  # the session goes on without it
        assert stored() == {}  # a session never stores a registration or tokens by itself

        browser = Browser()
        assert await login("vault", remote(server.url), browser.open, timeout=30) == "logged-in"
        await browser.settled()
        [url] = browser.opened
        query = parse_qs(urlsplit(url).query)
        assert query["code_challenge_method"] == ["S256"] and query["code_challenge"][0]
        assert query["redirect_uri"][0].startswith("http://127.0.0.1:")
        assert browser.pages[0].status_code == 200 and "You are logged in" in browser.pages[0].text
        assert stat.S_IMODE(token_file().stat().st_mode) == 0o600
        entry = stored()[server.url]  # keyed by the server's URL
        assert entry["tokens"]["access_token"] and entry["tokens"]["refresh_token"] and entry["client"]
        assert server.grants() == ["register", "authorize", "token authorization_code"]

        [status] = await app.mcp_set("vault", "restart")
        assert (status.status, status.tools, status.auth) == ("running", 1, "logged-in"), status
        model.script(Turn.tool_call("vault_secret", {"name": "door"}), Turn.text("It is 42."))
        await app.prompt(session.id, [TextInput(text="what is the door's secret?")])
        assert "the secret door is 42" in str(model.requests[-1].messages)


@pytest.mark.parametrize("separate", [False, True], ids=["same-origin", "separate-authorization-server"])
async def test_an_expired_access_token_is_refreshed_not_logged_in_again(
    make_app: AppFactory, model: FakeModelServer, tmp_path: Path, separate: bool
) -> None:
    env = {"OAUTH_SEPARATE_AS": "1"} if separate else {}
    async with oauth_server(tmp_path, OAUTH_TTL="1", **env) as server:
        browser = Browser()
        await login("vault", remote(server.url), browser.open, timeout=30)
        first = stored()[server.url]
        await until(lambda: time.time() > first["expires_at"], "the access token to expire")
        app = await make_app(mcp=vault(server), permission={"vault_*": "allow"})
        [status] = await app.mcp_servers()
        assert (status.status, status.auth) == ("running", "logged-in"), status
        assert "token refresh_token" in server.grants()
        assert server.grants().count("authorize") == 1  # no new login
        assert stored()[server.url]["tokens"]["access_token"] != first["tokens"]["access_token"]
        session = await app.create_session()
        model.script(Turn.tool_call("vault_secret", {"name": "key"}), Turn.text("Done."))
        await app.prompt(session.id, [TextInput(text="the key's secret?")])
        assert "the secret key is 42" in str(model.requests[-1].messages)


async def test_logout_deletes_the_tokens_and_the_next_start_needs_login(
    make_app: AppFactory, tmp_path: Path
) -> None:
    async with oauth_server(tmp_path) as server:
        await login("vault", remote(server.url), Browser().open, timeout=30)
        assert forget(server.url) is True
        assert server.url not in stored() and stat.S_IMODE(token_file().stat().st_mode) == 0o600
        assert forget(server.url) is False
        app = await make_app(mcp=vault(server))
        [status] = await app.mcp_servers()
        assert (status.status, status.auth) == ("needs-login", "needs-login"), status


@pytest.mark.parametrize(
    ("env", "state", "timeout", "said"),
    [
        ({}, "forged", 30.0, "the redirect's state does not match this login's"),
        ({"OAUTH_DENY": "1"}, None, 30.0, "authorization server refused: access_denied (the user said no)"),
        ({}, "", 0.5, "no answer from the browser within 0.5 s"),
    ],
    ids=["wrong-state", "denied", "timeout"],
)
async def test_a_failed_login_says_why_and_stores_nothing(
    tmp_path: Path, env: dict[str, str], state: str | None, timeout: float, said: str
) -> None:
    async with oauth_server(tmp_path, **env) as server:
        browser = Browser(state)
        opener = ignore if state == "" else browser.open
        with pytest.raises(LoginError, match="the login to vault failed: ") as caught:
            await login("vault", remote(server.url), opener, timeout=timeout)
        await browser.settled()
        assert said in str(caught.value)
        assert stored() == {}
        if browser.pages:  # the browser is told too
            assert browser.pages[0].status_code == 400 and "The login failed" in browser.pages[0].text


async def test_a_failed_login_keeps_the_tokens_already_stored(tmp_path: Path) -> None:
    async with oauth_server(tmp_path) as server:
        await login("vault", remote(server.url), Browser().open, timeout=30)
        before = stored()
        with pytest.raises(LoginError):
            await login("vault", remote(server.url), ignore, timeout=0.5)
        assert stored() == before


async def test_a_server_that_needs_no_login_says_so(make_app: AppFactory, tmp_path: Path) -> None:
    async with oauth_server(tmp_path, OAUTH_OPEN="1") as server:
        browser = Browser()
        assert await login("vault", remote(server.url), browser.open, timeout=30) == "not-needed"
        assert browser.opened == [] and stored() == {}
        app = await make_app(mcp=vault(server))
        [status] = await app.mcp_servers()
        assert (status.status, status.auth) == ("running", "not-needed"), status


async def test_a_client_named_in_the_config_is_used_instead_of_registering(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port free now, as a user picks one for their client
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redirect = f"http://127.0.0.1:{port}/callback"
    async with oauth_server(tmp_path, OAUTH_CLIENT=f"mine {redirect}") as server:
        cfg = McpRemote.model_validate(
            {"type": "remote", "url": server.url, "oauth": {"clientId": "mine", "redirectPort": port}}
        )
        browser = Browser()
        assert await login("vault", cfg, browser.open, timeout=30) == "logged-in"
        query = parse_qs(urlsplit(browser.opened[0]).query)
        assert (query["client_id"], query["redirect_uri"]) == (["mine"], [redirect])
        assert server.grants() == ["authorize", "token authorization_code"]  # no registration
