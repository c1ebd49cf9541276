"""The HTTP side of ``webfetch``: one deadline, same-origin redirects, the checked address pinned.

- **One deadline.** ``timeout`` bounds the whole fetch — resolving, connecting, every redirect and
  every read — not each read (a page that sends a byte a second ends at the deadline). The time a
  permission dialog stays open is not counted.
- **Redirects stay on their origin.** A redirect to the same scheme, host and port is followed (at
  most ``MAX_REDIRECTS``); one to another origin is not: the caller gets ``Redirected`` and decides
  (the model fetches the target itself, which asks for that origin).
- **The checked address is the one connected to.** The host is resolved once
  (``core.tools.webaddress``), local addresses are asked about, and every request of the fetch
  goes to one of those addresses with the URL's host in ``Host`` and in TLS's SNI and certificate
  check (httpx's ``sni_hostname`` request extension) — a second DNS answer cannot slip in between.
  Through a proxy the proxy connects: the check then uses the local resolution when there is one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from core.errors import ToolError
from core.llm import netenv
from core.record import record
from core.tools.webaddress import LocalAddress, Resolver, addresses_of, local_addresses

if TYPE_CHECKING:
    import httpx

MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5

AskLocal = Callable[[list[LocalAddress], int], Awaitable[None]]
"""Asked before connecting to local addresses (with the port); raises when the user says no."""


@record
class Page:
    """A fetched response body."""

    body: bytes
    media_type: str  # e.g. text/html; empty when the server did not say
    charset: str | None
    url: str  # after same-origin redirects


@record
class Redirected:
    """A redirect to another origin, not followed."""

    url: str  # the page that answered with the redirect
    target: str
    status: int


async def get(
    url: str, headers: dict[str, str], timeout: float, resolver: Resolver, ask_local: AskLocal
) -> Page | Redirected:
    """GET ``url`` under the rules in the module's doc; failures are ToolErrors for the model."""
    import httpx  # here: only a fetch needs it

    try:
        parsed = httpx.URL(url)
        network = netenv.httpx_options(url, os.environ)  # the proxy and CAs model requests use
    except httpx.InvalidURL as exc:
        raise ToolError(f"{url!r} is not a valid URL ({exc}). Rewrite it.") from exc
    except (OSError, ValueError) as exc:
        raise ToolError(f"Fetching {url} is not possible with this environment: {exc}") from exc
    loop = asyncio.get_running_loop()
    started = loop.time()
    host, port = parsed.raw_host.decode("ascii"), _port(parsed)
    proxied = network["proxy"] is not None
    try:
        async with asyncio.timeout(timeout):
            addresses = await addresses_of(host, port, resolver)
    except TimeoutError:
        raise ToolError(_timed_out(url, timeout)) from None
    except ToolError:
        if not proxied:
            raise
        addresses = []  # the proxy resolves names this machine cannot
    local = local_addresses(addresses)
    if local:
        await ask_local(local, port)
    remaining = timeout - (loop.time() - started)
    try:
        async with (
            asyncio.timeout(remaining),
            httpx.AsyncClient(follow_redirects=False, timeout=timeout, headers=headers, **network) as client,
        ):
            return await _hops(client, parsed, [] if proxied else addresses)
    except TimeoutError:
        raise ToolError(_timed_out(url, timeout)) from None
    except httpx.TimeoutException as exc:
        raise ToolError(_timed_out(url, timeout)) from exc
    except httpx.HTTPError as exc:
        raise ToolError(f"Fetching {url} failed: {exc}") from exc
    except httpx.InvalidURL as exc:
        raise ToolError(f"Fetching {url} was redirected to an invalid URL ({exc}).") from exc


async def _hops(client: httpx.AsyncClient, url: httpx.URL, addresses: list[str]) -> Page | Redirected:
    """Follow same-origin redirects from ``url``; ``addresses``: where to connect (empty: by name)."""
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        address, response = await _send(client, current, addresses)
        if address is not None:
            addresses = [address]  # the rest of the fetch goes where the first request went
        try:
            if not response.is_redirect:
                return await _page(response, current)
            target = current.join(response.headers["location"])
            if target.scheme not in ("http", "https"):
                raise ToolError(f"Fetching {url} was redirected to an unsupported URL: {target}")
            if _origin(target) != _origin(current):
                return Redirected(str(current), str(target), response.status_code)
            current = target
        finally:
            await response.aclose()
    raise ToolError(f"Fetching {url} took more than {MAX_REDIRECTS} redirects; giving up.")


async def _send(
    client: httpx.AsyncClient, url: httpx.URL, addresses: list[str]
) -> tuple[str | None, httpx.Response]:
    """The response to GET ``url`` from the first of ``addresses`` that takes the connection."""
    import httpx

    if not addresses:
        return None, await client.send(client.build_request("GET", url), stream=True)
    host = url.raw_host.decode("ascii")
    named = host not in addresses  # a literal address needs no SNI of its own
    extensions = {"sni_hostname": host} if named and url.scheme == "https" else None
    failure: httpx.ConnectError | None = None
    for address in addresses:
        request = client.build_request(
            "GET",
            url.copy_with(host=address),
            headers={"Host": url.netloc.decode("ascii")},
            extensions=extensions,
        )
        try:
            return address, await client.send(request, stream=True)
        except httpx.ConnectError as exc:  # the next address of the same host, as a browser does
            failure = exc
    assert failure is not None, "addresses is not empty"
    raise failure


async def _page(response: httpx.Response, url: httpx.URL) -> Page:
    if response.status_code >= 400:
        raise ToolError(f"Fetching {url} failed with HTTP status {response.status_code}.")
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BYTES:
        raise ToolError(_too_large(str(url)))
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise ToolError(_too_large(str(url)))
        chunks.append(chunk)
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return Page(b"".join(chunks), media, response.charset_encoding, str(url))


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _origin(url: httpx.URL) -> tuple[str, bytes, int]:
    return url.scheme, url.raw_host.lower(), _port(url)


def _timed_out(url: str, timeout: float) -> str:
    return (
        f"Fetching {url} timed out: it took more than {timeout:g} s in all "
        "(resolving, connecting and reading). Try again with a longer timeout, or another URL."
    )


def _too_large(url: str) -> str:
    return f"The response from {url} is larger than {MAX_BYTES // (1024 * 1024)} MB; fetch a smaller page."
