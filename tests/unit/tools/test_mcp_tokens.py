"""The MCP token file (``core.tools.mcp_tokens``): written owner-only and keyed by URL; an access
token that expired while agentls was not running is handed over empty (so the SDK refreshes it);
a login's registration is written only with its tokens; a login does not see the old tokens; a
file that is not agentls' is refused by name, never overwritten."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from core.errors import ConfigError
from core.tools.mcp_tokens import TokenFile, forget, logged_in

URL = "https://mcp.example/mcp"


def token(access: str = "a1", expires_in: int | None = 3600) -> OAuthToken:
    return OAuthToken(access_token=access, refresh_token="r1", expires_in=expires_in)


async def test_tokens_are_kept_owner_only_by_url_with_their_registration(tmp_path: Path) -> None:
    path = tmp_path / "data" / "mcp-oauth.json"
    login = TokenFile(URL, fresh=True, path=path)
    await login.set_client_info(OAuthClientInformationFull(client_id="c1", redirect_uris=None))
    assert not path.exists()  # the registration waits for the tokens
    await login.set_tokens(token())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    entry = json.loads(path.read_text())[URL]
    assert entry["tokens"]["access_token"] == "a1" and entry["client"]["client_id"] == "c1"
    session = TokenFile(URL, path=path)
    assert (await session.get_tokens()) == token()
    assert (await session.get_client_info()).client_id == "c1"  # type: ignore[union-attr]
    assert logged_in(URL, path) and not logged_in("https://other.example/mcp", path)


async def test_an_expired_access_token_is_handed_over_empty_for_a_refresh(tmp_path: Path) -> None:
    path = tmp_path / "mcp-oauth.json"
    await TokenFile(URL, path=path).set_tokens(token(expires_in=0))
    handed = await TokenFile(URL, path=path).get_tokens()
    assert handed is not None and handed.access_token == "" and handed.refresh_token == "r1"


async def test_a_login_sees_no_old_tokens_and_a_session_registers_nothing(tmp_path: Path) -> None:
    path = tmp_path / "mcp-oauth.json"
    await TokenFile(URL, path=path).set_tokens(token())
    fresh = TokenFile(URL, fresh=True, path=path)
    assert await fresh.get_tokens() is None and await fresh.get_client_info() is None
    unknown = TokenFile("https://new.example/mcp", unregistered="agentls", path=path)
    placeholder = await unknown.get_client_info()
    assert placeholder is not None and placeholder.client_id == "agentls"


async def test_logout_forgets_one_url(tmp_path: Path) -> None:
    path = tmp_path / "mcp-oauth.json"
    await TokenFile(URL, path=path).set_tokens(token())
    await TokenFile("https://other.example/mcp", path=path).set_tokens(token("a2"))
    assert forget(URL, path) is True and forget(URL, path) is False
    assert list(json.loads(path.read_text())) == ["https://other.example/mcp"]


async def test_a_file_that_is_not_agentls_is_refused_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp-oauth.json"
    path.write_text("not json")
    with pytest.raises(
        ConfigError, match=r"mcp-oauth.json cannot be read as agentls' MCP token file .*remove it"
    ):
        await TokenFile(URL, path=path).set_tokens(token())
    assert path.read_text() == "not json"
    path.write_text("[1]")
    with pytest.raises(ConfigError, match="does not hold a JSON object"):
        logged_in(URL, path)
