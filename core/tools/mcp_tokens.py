"""Where the OAuth tokens of remote MCP servers are kept: one owner-only file in the data folder
(``mcp-oauth.json``, mode 0600), keyed by the server's URL — two configs naming the same URL share
a login, and renaming a server does not lose it. Each entry holds the tokens, when the access token
expires (an absolute time: the SDK only knows ``expires_in``, which means nothing after a restart)
and the client registration the authorization server gave. Tokens are never logged.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from core.cachefile import read_capped, write_whole
from core.config.paths import data_dir
from core.errors import ConfigError

if TYPE_CHECKING:  # the SDK is imported only once a remote server is connected to
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

log = logging.getLogger(__name__)

FILE_NAME = "mcp-oauth.json"
_MAX_BYTES = 1 << 20


def token_file() -> Path:
    """The file the tokens live in."""
    return data_dir() / FILE_NAME


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_capped(path, _MAX_BYTES))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:  # unreadable or not JSON: never silently replaced
        raise ConfigError(f"{path} cannot be read as agentls' MCP token file ({exc}); remove it") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; remove it")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_whole(path, json.dumps(data, indent=2).encode())  # a temporary file made 0600, renamed
    os.chmod(path, 0o600)


def logged_in(url: str, path: Path | None = None) -> bool:
    """Whether tokens are stored for the server at ``url`` (usable or refreshable)."""
    entry = _read(path or token_file()).get(url)
    return isinstance(entry, dict) and "tokens" in entry


def forget(url: str, path: Path | None = None) -> bool:
    """Delete what is stored for ``url``; False when there was nothing."""
    path = path or token_file()
    data = _read(path)
    if data.pop(url, None) is None:
        return False
    _write(path, data)
    return True


class TokenFile:
    """The SDK's ``TokenStorage`` for one server URL, over the token file.

    ``fresh``: what is already stored is not offered (a login registers again — its redirect goes
    to a new port — and asks for new tokens; the old stay until new ones are stored). A new client
    registration is kept in memory until the tokens come, and both are written together: a login
    that fails stores nothing. ``configured``: the client the user's config names (``oauth.clientId``),
    used instead of registering. ``unregistered``: the client id offered when none is stored or
    configured — a session that cannot log in must not register clients with the server it then
    cannot use (the SDK registers before it authorizes); the login stops at the redirect anyway.
    """

    def __init__(
        self,
        url: str,
        *,
        fresh: bool = False,
        configured: OAuthClientInformationFull | None = None,
        unregistered: str | None = None,
        path: Path | None = None,
    ) -> None:
        self.url = url
        self.path = path or token_file()
        self._fresh = fresh
        self._unregistered = unregistered
        self._client: OAuthClientInformationFull | None = configured
        self.stored = False  # tokens were written by this object

    def _entry(self) -> dict[str, Any]:
        entry = _read(self.path).get(self.url)
        return entry if isinstance(entry, dict) else {}

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens; an expired access token is given as empty, so the SDK refreshes first."""
        from mcp.shared.auth import OAuthToken

        if self._fresh:
            return None
        entry = self._entry()
        try:
            tokens = OAuthToken.model_validate(entry["tokens"]) if "tokens" in entry else None
        except ValidationError:
            log.warning("the stored tokens of an MCP server are not valid; it needs a login again")
            return None
        expires_at = entry.get("expires_at")
        if tokens is not None and isinstance(expires_at, (int, float)) and time.time() >= expires_at:
            # The SDK loads tokens without an expiry time and would send the stale access token,
            # meet a 401 and start a whole new authorization; with no access token it refreshes.
            return tokens.model_copy(update={"access_token": "", "expires_in": None})
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store ``tokens`` (and the registration that obtained them) with their absolute expiry."""
        data = _read(self.path)
        entry = data.get(self.url) if isinstance(data.get(self.url), dict) else {}
        assert isinstance(entry, dict)
        entry["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        if tokens.expires_in is not None:
            entry["expires_at"] = time.time() + int(tokens.expires_in)
        else:
            entry.pop("expires_at", None)
        if self._client is not None:
            entry["client"] = self._client.model_dump(mode="json", exclude_none=True)
        data[self.url] = entry
        _write(self.path, data)
        self._fresh = False
        self.stored = True

    def remember_metadata(
        self, authorization: dict[str, Any] | None, resource: dict[str, Any] | None
    ) -> None:
        """Keep the authorization server's and the protected resource's metadata with the tokens
        (JSON forms): a later session refreshes at the token endpoint they name."""
        data = _read(self.path)
        entry = data.get(self.url)
        if not isinstance(entry, dict):
            return
        entry["authorization_server"] = authorization
        entry["resource"] = resource
        _write(self.path, data)

    def metadata(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The stored metadata (authorization server, protected resource), when a login kept it."""
        entry = self._entry()
        found = entry.get("authorization_server"), entry.get("resource")
        return tuple(m if isinstance(m, dict) else None for m in found)  # type: ignore[return-value]

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The client registration: the configured one or the one made in this flow, else the stored one."""
        from mcp.shared.auth import OAuthClientInformationFull

        if self._client is not None or self._fresh:
            return self._client
        raw = self._entry().get("client")
        try:
            if raw is not None:
                return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            log.warning("the stored client registration of an MCP server is not valid")
        if self._unregistered is not None:
            return OAuthClientInformationFull(client_id=self._unregistered, redirect_uris=None)
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep the registration until tokens are stored with it."""
        self._client = client_info
