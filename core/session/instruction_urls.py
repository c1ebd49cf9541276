"""Instruction entries that are URLs: fetched with a timeout, cached, and warned about when they fail.

A URL in ``instructions`` is fetched when a request is built, concurrently with the others and
within ``timeout`` seconds in all (connecting and every read), so a dead or dripping server costs
one short wait, not the turn. A text is kept for ``ttl`` seconds; a failure is remembered for
``retry_after`` seconds, so a broken entry is neither fetched nor warned about again at every step.
A failed entry is left out of the system prompt with a warning in the log that names the URL and
why, never dropped silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

from core.llm import netenv
from core.record import struct

log = logging.getLogger(__name__)

FETCH_TIMEOUT = 5.0
TEXT_TTL = 600.0
RETRY_AFTER = 120.0
MAX_BYTES = 256_000  # instructions are read on every request: a huge page would crowd out the work


def is_url(entry: str) -> bool:
    """Whether an ``instructions`` entry names a URL rather than a file pattern."""
    return "://" in entry


@struct
class _Entry:
    at: float
    text: str | None  # None: the fetch failed


class InstructionURLs:
    """Fetches and caches URL instructions (see the module docstring)."""

    def __init__(
        self, *, timeout: float = FETCH_TIMEOUT, ttl: float = TEXT_TTL, retry_after: float = RETRY_AFTER
    ) -> None:
        self._timeout = timeout
        self._ttl = ttl
        self._retry_after = retry_after
        self._cache: dict[str, _Entry] = {}

    async def fetch_all(self, urls: list[str]) -> list[tuple[str, str]]:
        """(url, text) for every URL that could be fetched, in the configured order."""
        texts = await asyncio.gather(*(self._get(url) for url in urls))
        return [(url, text) for url, text in zip(urls, texts, strict=True) if text is not None]

    async def _get(self, url: str) -> str | None:
        now = time.monotonic()
        cached = self._cache.get(url)
        if cached is not None and now - cached.at < (
            self._ttl if cached.text is not None else self._retry_after
        ):
            return cached.text
        text, problem = await self._fetch(url)
        if problem is not None:
            if cached is not None and cached.text is not None:
                # A server that answered before keeps its last text through a short outage.
                log.warning("instructions %s: %s; using the copy fetched earlier", url, problem)
                text = cached.text
            else:
                log.warning("instructions %s %s; it is left out of the system prompt", url, problem)
        self._cache[url] = _Entry(now, text)
        return text

    async def _fetch(self, url: str) -> tuple[str | None, str | None]:
        """The page's text, or the reason it could not be had."""
        if not url.startswith(("http://", "https://")):
            return None, "is not an http(s) URL or a file pattern"
        import httpx  # imported with the first URL entry: most projects have none

        try:
            network = netenv.httpx_options(url, os.environ)  # the proxy and CAs model requests use
        except (OSError, ValueError) as exc:
            return None, f"cannot be fetched in this environment ({exc})"
        try:
            # One deadline for the whole fetch: httpx's own timeout is per read, which a server
            # sending a byte a second never meets (and the request waits for this fetch).
            async with (
                asyncio.timeout(self._timeout),
                httpx.AsyncClient(timeout=self._timeout, follow_redirects=True, **network) as client,
            ):
                response = await client.get(url)
        except (TimeoutError, httpx.TimeoutException):
            return None, f"did not answer within {self._timeout:g} s"
        except httpx.HTTPError as exc:
            return None, f"could not be fetched ({type(exc).__name__}: {exc})"
        if response.status_code != 200:
            return None, f"answered HTTP {response.status_code}"
        body = response.content
        if len(body) > MAX_BYTES:
            log.warning("instructions %s: only the first %d bytes of %d are used", url, MAX_BYTES, len(body))
            body = body[:MAX_BYTES]
        return body.decode(response.encoding or "utf-8", errors="replace"), None
