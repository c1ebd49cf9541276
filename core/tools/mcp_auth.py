"""OAuth 2.1 for remote MCP servers, through the SDK's ``OAuthClientProvider`` (an httpx auth): on a
401 it discovers the protected-resource and authorization-server metadata, registers a client
(RFC 7591) unless the config names one, sends the user's browser to authorize with PKCE (S256),
exchanges the code, and later refreshes the access token when it expires.

Two uses. A session (``session_auth``) only ever uses stored tokens — refreshing them as needed —
and never opens a browser: a server that would need one is marked *needs login* and the session
goes on without it. A login (``login``, behind ``agentls mcp login`` and the servers view's Log in)
opens the authorization URL through the caller and waits for the loopback redirect.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Never

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl, ValidationError

from core.config.schema import McpRemote
from core.tools.mcp_redirect import LoginError, LoopbackRedirect
from core.tools.mcp_tokens import TokenFile

log = logging.getLogger(__name__)

LOGIN_TIMEOUT = 300.0
CLIENT_NAME = "agentls"
# A session never redirects; the SDK's client metadata still wants a redirect URI to hold.
_UNUSED_REDIRECT = "http://127.0.0.1/callback"

LoginOutcome = Literal["logged-in", "not-needed"]


class NeedsLogin(Exception):
    """A session met a server that needs a browser login it cannot do itself."""


def _metadata(cfg: McpRemote, redirect_uri: str) -> OAuthClientMetadata:
    secret = cfg.oauth is not None and cfg.oauth.client_secret is not None
    return OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="client_secret_post" if secret else "none",
        scope=" ".join(cfg.oauth.scopes) if cfg.oauth is not None and cfg.oauth.scopes else None,
    )


def _configured(cfg: McpRemote, redirect_uri: str) -> OAuthClientInformationFull | None:
    if cfg.oauth is None:
        return None
    return OAuthClientInformationFull(
        client_id=cfg.oauth.client_id,
        client_secret=cfg.oauth.client_secret,
        redirect_uris=[AnyUrl(redirect_uri)],
        token_endpoint_auth_method="client_secret_post" if cfg.oauth.client_secret else "none",
    )


class SessionAuth:
    """The OAuth of one remote server in a session: stored tokens, refreshed; never a browser."""

    def __init__(self, cfg: McpRemote) -> None:
        self.needs_login = False
        storage = TokenFile(cfg.url, configured=_configured(cfg, _UNUSED_REDIRECT), unregistered=CLIENT_NAME)
        self.provider = OAuthClientProvider(
            cfg.url, _metadata(cfg, _UNUSED_REDIRECT), storage, self._redirect, self._callback
        )
        _restore_metadata(self.provider, storage)

    async def _redirect(self, url: str) -> None:
        self.needs_login = True
        raise NeedsLogin("it needs a login")

    async def _callback(self) -> Never:  # never reached: the redirect stops the flow first
        raise NeedsLogin("it needs a login")


async def login(
    name: str,
    cfg: McpRemote,
    open_url: Callable[[str], Awaitable[None]],
    timeout: float = LOGIN_TIMEOUT,
) -> LoginOutcome:
    """Log in to the server: ``open_url`` is given the authorization URL (to open in a browser)
    and the loopback redirect is awaited for ``timeout`` seconds. New tokens replace the stored
    ones only when the whole flow succeeded. "not-needed": the server let agentls in without.

    LoginError when the flow failed (refused, timed out, a mismatched redirect, a token error)."""
    if not cfg.uses_oauth:
        raise LoginError(f"the MCP server {name} is given an Authorization header in its config; no login")
    port = cfg.oauth.redirect_port if cfg.oauth is not None else None
    async with LoopbackRedirect(timeout, port or 0) as redirect:
        storage = TokenFile(cfg.url, fresh=True, configured=_configured(cfg, redirect.uri))

        async def send_user(url: str) -> None:
            redirect.expect(url)
            await open_url(url)

        metadata = _metadata(cfg, redirect.uri)
        provider = OAuthClientProvider(cfg.url, metadata, storage, send_user, redirect.wait)
        try:
            await _connect(cfg, provider)
        except Exception as exc:
            raise _login_error(name, exc) from None
    if storage.stored:
        _keep_metadata(provider, storage)
        log.info("MCP server %s: logged in", name)
        return "logged-in"
    return "not-needed"


# The SDK discovers the authorization server's metadata only on a 401, and refreshes at the token
# endpoint it names — else at ``/token`` of the MCP server's origin, wrong wherever the authorization
# server lives elsewhere. So a login keeps what it discovered, and a session gives it back: two
# public fields of the provider's ``context`` (the SDK's ``OAuthContext``), which the test with an
# authorization server on an origin of its own pins by name (tests/e2e/test_mcp_oauth.py).


def _keep_metadata(provider: OAuthClientProvider, storage: TokenFile) -> None:
    found = provider.context.oauth_metadata, provider.context.protected_resource_metadata
    authorization, resource = (m.model_dump(mode="json", exclude_none=True) if m else None for m in found)
    storage.remember_metadata(authorization, resource)


def _restore_metadata(provider: OAuthClientProvider, storage: TokenFile) -> None:
    authorization, resource = storage.metadata()
    try:
        if authorization is not None:
            provider.context.oauth_metadata = OAuthMetadata.model_validate(authorization)
        if resource is not None:
            provider.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(resource)
    except ValidationError:  # stored by another version: a 401 discovers it again
        log.info("the stored OAuth metadata of %s is not valid; it is discovered again", storage.url)


async def begin_login(
    name: str, cfg: McpRemote, timeout: float = LOGIN_TIMEOUT
) -> tuple[str | None, asyncio.Task[LoginOutcome]]:
    """Start a login whose authorization URL someone else opens (an editor, through its client):
    the URL once the flow reaches it, and the task that goes on waiting for the redirect; None
    and the finished task when it ended first (no login needed, or it failed before)."""
    address: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def hand_over(url: str) -> None:
        address.set_result(url)

    task = asyncio.create_task(login(name, cfg, hand_over, timeout), name=f"mcp-login:{name}")
    either: list[asyncio.Future[Any]] = [address, task]
    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    return (address.result() if address.done() else None), task


async def _connect(cfg: McpRemote, auth: httpx2.Auth) -> None:
    """Open a session with the server (initialize and list its tools), then close it."""
    if cfg.transport == "sse":
        async with Client(sse_client(cfg.url, headers=cfg.headers or None, auth=auth)) as client:
            await client.list_tools()
        return
    async with (
        create_mcp_http_client(headers=cfg.headers or None, auth=auth) as http,
        Client(streamable_http_client(cfg.url, http_client=http)) as client,
    ):
        await client.list_tools()


def _login_error(name: str, exc: BaseException) -> LoginError:
    """What went wrong, from whatever the SDK wrapped it in (exception groups, causes)."""
    found = _find(exc, LoginError)
    if isinstance(found, LoginError):
        return LoginError(f"the login to {name} failed: {found}")
    flow = _find(exc, OAuthFlowError)
    if flow is not None:
        return LoginError(f"the login to {name} failed: {flow}")
    return LoginError(f"the login to {name} failed: could not reach it ({_first_line(exc)})")


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    for linked in (exc.__cause__, exc.__context__):
        if linked is not None and linked is not exc:
            found = _find(linked, kind)
            if found is not None:
                return found
    return None


def _first_line(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
