"""HTTP/1.1 for model requests: asyncio's streams and TLS, h11 for the protocol.

A model request is one POST whose answer streams back, then the next step's POST on the same
connection. httpx did this before (it still fetches web pages, instruction URLs and litellm's
requests), but its async client brings httpcore and anyio's asyncio backend, whose imports (and the
GIL they held on the thread that built the client) cost ~135 ms of every ``agentls run`` before its
first model request: 611 → 476 ms median in an interleaved A/B of bench/startup.py (issue #14).
This module is what a model stream needs of it:

- h11 (the HTTP/1.1 state machine inside httpcore) writes requests and parses and frames answers:
  Content-Length, chunked or close-delimited bodies, keep-alive or not;
- a name's addresses are raced (asyncio's happy eyeballs, 250 ms apart), not tried one by one;
- connections are kept per (scheme, host, port, proxy) for the next request, at most ``max_idle``;
  one that the server closed while idle is noticed, or failed over once if the server closes it
  before answering;
- HTTPS verifies against certifi's bundle, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` (as httpx did),
  with a context made only for the first HTTPS connection;
- proxies come from the environment as curl and httpx read them: ``https_proxy``, ``http_proxy``,
  ``all_proxy`` (lower case first) and ``no_proxy``; HTTPS goes through a ``CONNECT`` tunnel, plain
  HTTP in absolute form; ``user:password@`` in a proxy URL becomes Basic credentials (what the
  environment names, proxies and CA certificates, is read in ``core.llm.netenv``);
- gzip and deflate answers are decoded (``core.llm.content_encoding``), headers up to 100 KiB read
  (as httpx does).

Failures raise the ``HTTPError`` subclasses below; ``core.llm.errors.from_transport`` classifies them.
"""

from __future__ import annotations

import asyncio
import base64
import os
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import TypeVar
from urllib.parse import unquote, urlsplit

import h11

from core.llm import content_encoding, netenv
from core.record import record

READ_SIZE = 64 * 1024
HAPPY_EYEBALLS_S = 0.25  # RFC 8305's recommended connection attempt delay
MAX_HEAD_BYTES = 100 * 1024  # an answer's status line and headers: h11's 16 KiB default is too small
T = TypeVar("T")


class HTTPError(Exception):
    """A request that got no usable HTTP answer."""


class ConnectError(HTTPError):
    """No connection: the name did not resolve, the port refused, TLS or the proxy failed."""


class CertificateError(ConnectError):
    """The server's TLS certificate did not verify against the trusted CA certificates."""


class HTTPTimeout(HTTPError):
    """Connecting, sending or waiting for the next bytes took longer than allowed."""


class ProtocolError(HTTPError):
    """The connection dropped, or the server's answer broke HTTP/1.1."""


class InvalidRequestError(HTTPError):
    """The request cannot be sent as given: a URL that is not http(s) or has no host, an
    unsupported proxy, a header value HTTP cannot carry (a line break in an API key)."""


@record
class URL:
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent in the request line
    credentials: str | None = None  # "user:password" from the URL, for Basic authorization

    @classmethod
    def parse(cls, text: str, default_scheme: str | None = None) -> URL:
        if default_scheme and "://" not in text:
            text = f"{default_scheme}://{text}"
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise InvalidRequestError(f"invalid URL {text!r}: {exc}") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise InvalidRequestError(f"unsupported URL scheme {parts.scheme!r} in {text!r} (http or https)")
        if not parts.hostname:
            raise InvalidRequestError(f"no host in URL {text!r}")
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        credentials = None
        if parts.username is not None:
            credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        return cls(scheme, parts.hostname, port or (443 if scheme == "https" else 80), target, credentials)

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    def absolute(self) -> str:
        return f"{self.scheme}://{self.authority}{self.target}"


# --- proxies ----------------------------------------------------------------------------------


def proxy_for(url: URL, environ: Mapping[str, str]) -> URL | None:
    """The proxy the environment names for ``url``, or None (none set, or ``no_proxy`` matches)."""
    try:
        value = netenv.proxy_url(url.scheme, url.host, url.port, environ)
    except ValueError as exc:  # a SOCKS proxy
        raise InvalidRequestError(str(exc)) from None
    return None if value is None else URL.parse(value)


# --- connections -----------------------------------------------------------------------------


async def _within(seconds: float | None, awaitable: Awaitable[T], what: str) -> T:
    try:
        async with asyncio.timeout(seconds):
            return await awaitable
    except TimeoutError:
        raise HTTPTimeout(f"{what} timed out after {seconds:g} s") from None


class _Connection:
    """One socket and its h11 state; usable for a new request while ``reusable``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.answering = False  # the current request's answer has begun

    @property
    def reusable(self) -> bool:
        return (
            self.h11.our_state is h11.IDLE
            and self.h11.their_state is h11.IDLE
            and not self.writer.is_closing()
            and not self.reader.at_eof()  # the server closed it while it was idle
        )

    async def write(self, event: h11.Event, timeout: float | None) -> None:
        data = self.h11.send(event)
        if data:
            self.writer.write(data)
            await _within(timeout, self.writer.drain(), "sending the request")

    def buffered_event(self) -> h11.Event | type[h11.NEED_DATA]:
        """The next event of the bytes already read, or ``h11.NEED_DATA``."""
        try:
            return self.h11.next_event()  # type: ignore[return-value]
        except h11.RemoteProtocolError as exc:
            raise ProtocolError(f"the server broke HTTP/1.1: {exc}") from None

    async def next_event(self, timeout: float | None) -> h11.Event:
        while True:
            event = self.buffered_event()
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]
            data = await _within(timeout, self.reader.read(READ_SIZE), "waiting for the answer")
            try:
                self.h11.receive_data(data)
            except h11.RemoteProtocolError as exc:
                raise ProtocolError(f"the server broke HTTP/1.1: {exc}") from None

    def close(self) -> None:
        self.writer.close()  # at once: the event loop finishes the socket's shutdown


class Headers(Mapping[str, str]):
    """Response headers by case-insensitive name (repeated ones joined with ", ")."""

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self._items: dict[str, str] = {}
        for name, value in raw:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            self._items[key] = f"{self._items[key]}, {text}" if key in self._items else text

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class Response:
    """An answer whose body is read as it arrives; ``aclose`` when done with it."""

    def __init__(
        self,
        status_code: int,
        headers: Headers,
        connection: _Connection,
        read_timeout: float | None,
        release: Callable[[_Connection], None],
    ) -> None:
        self.status_code = status_code
        self.headers = headers
        self._connection: _Connection | None = connection
        self._read_timeout = read_timeout
        self._release = release
        self._decoder = content_encoding.decoder_for(headers.get("content-encoding", ""))

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes, decoded, a network read at a time; the connection goes back to the
        pool once the answer is complete.

        A read holds many chunks of a chunked body (a model server sends one per event): they are
        joined and yielded once, so the layers above pay once per read, not once per chunk.
        """
        while (connection := self._connection) is not None:
            try:
                event: h11.Event | type[h11.NEED_DATA] = await connection.next_event(self._read_timeout)
            except (OSError, ProtocolError) as exc:
                self._drop()
                if isinstance(exc, ProtocolError):
                    raise
                raise ProtocolError(f"the connection dropped during the answer: {exc}") from None
            except BaseException:
                self._drop()
                raise
            pieces: list[bytes] = []
            broken: ProtocolError | None = None
            while isinstance(event, h11.Data):
                pieces.append(event.data)
                try:
                    event = connection.buffered_event()
                except ProtocolError as exc:
                    broken = exc  # raised after the chunks before it, as they arrived first
                    break
            if pieces and (data := self._decode(b"".join(pieces))):
                yield data
            if broken is not None:
                self._drop()
                raise broken
            if isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                if tail := self._flush():
                    yield tail
                self._finish()

    async def aread(self) -> bytes:
        """The whole body."""
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Give up on the rest of the body (the connection is closed unless the answer was whole)."""
        self._drop()

    def _decode(self, data: bytes) -> bytes:
        if self._decoder is None:
            return data
        try:
            return self._decoder.decompress(data)
        except zlib.error as exc:
            self._drop()
            raise ProtocolError(
                f"the answer's {self.headers.get('content-encoding')} body is corrupt: {exc}"
            ) from None

    def _flush(self) -> bytes:
        if self._decoder is None:
            return b""
        try:
            return self._decoder.flush()
        except zlib.error as exc:
            self._drop()
            raise ProtocolError(
                f"the answer's {self.headers.get('content-encoding')} body is corrupt: {exc}"
            ) from None

    def _finish(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            if connection.h11.our_state is h11.DONE and connection.h11.their_state is h11.DONE:
                connection.h11.start_next_cycle()
                connection.answering = False
            self._release(connection)

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


class Client:
    """Keeps connections between requests; one per event loop (connections belong to their loop).

    ``tls`` makes the TLS context, on a worker thread at the first HTTPS connection.
    """

    def __init__(
        self,
        *,
        max_idle: int = 8,
        tls: Callable[[], ssl.SSLContext] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.max_idle = max_idle
        self._environ = os.environ if environ is None else environ
        self._make_tls = tls or (lambda: netenv.tls_context(self._environ))
        self._tls: asyncio.Future[ssl.SSLContext] | None = None
        self._idle: dict[tuple[URL, URL | None], list[_Connection]] = {}
        self._closed = False

    @property
    def idle_connections(self) -> int:
        return sum(len(conns) for conns in self._idle.values())

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: bytes = b"",
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
    ) -> Response:
        """Send the request and return once the answer's status and headers are in."""
        if self._closed:
            raise HTTPError("the HTTP client is closed")
        target = URL.parse(url)
        proxy = proxy_for(target, self._environ)
        origin = URL(target.scheme, target.host, target.port, "/")
        key = (origin, proxy)
        try:
            request = self._request(method, target, proxy, headers, body)
        except h11.LocalProtocolError as exc:
            raise InvalidRequestError(f"cannot send the request to {target.authority}: {exc}") from None
        while True:
            connection = self._take_idle(key)
            reused = connection is not None
            if connection is None:
                connection = await self._connect(target, proxy, connect_timeout)
            try:
                return await self._exchange(connection, request, body, key, read_timeout)
            except (OSError, ProtocolError) as exc:
                connection.close()
                if reused and not connection.answering:
                    # Closed before an answer began: how a server drops a connection that sat idle
                    # (if it read the request first, a model answers it once more; no harm).
                    continue
                if isinstance(exc, ProtocolError):
                    raise
                raise ProtocolError(f"the connection dropped: {exc}") from None
            except BaseException:
                connection.close()
                raise

    def _request(
        self, method: str, target: URL, proxy: URL | None, headers: Mapping[str, str], body: bytes
    ) -> h11.Request:
        lines: list[tuple[str, str]] = [("host", target.authority)]
        given = {name.lower() for name in headers}
        if "accept-encoding" not in given:
            lines.append(("accept-encoding", "gzip, deflate"))
        if target.credentials and "authorization" not in given:
            lines.append(("authorization", _basic(target.credentials)))
        plain_proxy = proxy is not None and target.scheme == "http"
        if plain_proxy and proxy is not None and proxy.credentials:
            lines.append(("proxy-authorization", _basic(proxy.credentials)))
        lines.extend(
            (name, value) for name, value in headers.items() if name.lower() not in ("host", "content-length")
        )
        lines.append(("content-length", str(len(body))))
        return h11.Request(
            method=method, target=target.absolute() if plain_proxy else target.target, headers=lines
        )

    async def _exchange(
        self,
        connection: _Connection,
        request: h11.Request,
        body: bytes,
        key: tuple[URL, URL | None],
        read_timeout: float | None,
    ) -> Response:
        await connection.write(request, read_timeout)
        if body:
            await connection.write(h11.Data(data=body), read_timeout)
        await connection.write(h11.EndOfMessage(), read_timeout)
        while True:
            event = await connection.next_event(read_timeout)
            if isinstance(event, h11.Response):
                connection.answering = True
                return Response(
                    event.status_code,
                    Headers(list(event.headers)),
                    connection,
                    read_timeout,
                    lambda done: self._keep(key, done),
                )
            if isinstance(event, h11.ConnectionClosed):
                raise ProtocolError("the server closed the connection without answering")
            # an InformationalResponse (100 Continue): the real answer follows

    def _take_idle(self, key: tuple[URL, URL | None]) -> _Connection | None:
        idle = self._idle.get(key, [])
        while idle:
            connection = idle.pop()
            if connection.reusable:
                return connection
            connection.close()
        return None

    def _keep(self, key: tuple[URL, URL | None], connection: _Connection) -> None:
        if self._closed or not connection.reusable or self.idle_connections >= self.max_idle:
            connection.close()
            return
        self._idle.setdefault(key, []).append(connection)

    async def _connect(self, target: URL, proxy: URL | None, timeout: float | None) -> _Connection:
        """TCP, then TLS when the hop or the target is HTTPS: the TLS context is made on a thread
        while the name resolves and the TCP handshake travels (the first one loads the CA bundle,
        tens of ms of CPU)."""
        hop = proxy or target
        if "https" in (target.scheme, hop.scheme):
            self._tls_context()  # under way while TCP connects
        try:
            # Every address of the name is tried, the next one HAPPY_EYEBALLS_S after the last
            # began (RFC 8305, asyncio's own): a dead route to the first one does not stall.
            opening = asyncio.open_connection(
                hop.host, hop.port, happy_eyeballs_delay=HAPPY_EYEBALLS_S, interleave=1
            )
            reader, writer = await _within(timeout, opening, f"connecting to {hop.authority}")
        except OSError as exc:  # refused, unreachable, no such name
            raise ConnectError(f"cannot connect to {hop.authority}: {exc}") from None
        try:
            if hop.scheme == "https":
                await self._start_tls(writer, hop, timeout)
            if proxy is None or target.scheme == "http":
                return _Connection(reader, writer)
            # HTTPS through the proxy: a tunnel, then TLS with the target inside it
            await _within(
                timeout,
                self._tunnel(_Connection(reader, writer), target, proxy),
                f"opening a tunnel through {proxy.authority}",
            )
            await self._start_tls(writer, target, timeout)
            return _Connection(reader, writer)  # a fresh h11 state: the tunnel's CONNECT is behind it
        except OSError as exc:  # the TLS handshake (ssl.SSLError), or the proxy hung up
            writer.close()
            through = f" through {proxy.authority}" if proxy is not None else ""
            kind = CertificateError if isinstance(exc, ssl.SSLCertVerificationError) else ConnectError
            raise kind(f"cannot connect to {target.authority}{through}: {exc}") from None
        except BaseException:
            writer.close()
            raise

    async def _start_tls(self, writer: asyncio.StreamWriter, peer: URL, timeout: float | None) -> None:
        try:
            context = await asyncio.shield(self._tls_context())
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
            self._tls = None  # the next request tries again
            raise InvalidRequestError(f"cannot load the CA certificates to verify HTTPS: {exc}") from None
        await _within(
            timeout,
            writer.start_tls(context, server_hostname=peer.host),
            f"the TLS handshake with {peer.authority}",
        )

    async def _tunnel(self, connection: _Connection, target: URL, proxy: URL) -> None:
        authority = f"[{target.host}]:{target.port}" if ":" in target.host else f"{target.host}:{target.port}"
        headers = [("host", authority)]
        if proxy.credentials:
            headers.append(("proxy-authorization", _basic(proxy.credentials)))
        await connection.write(h11.Request(method="CONNECT", target=authority, headers=headers), None)
        await connection.write(h11.EndOfMessage(), None)
        while True:
            event = await connection.next_event(None)
            if isinstance(event, h11.Response):
                if 200 <= event.status_code < 300:
                    return
                raise ConnectError(
                    f"the proxy {proxy.authority} refused the tunnel to {authority}: HTTP {event.status_code}"
                    f" {bytes(event.reason).decode('latin-1')}"
                )
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectError(f"the proxy {proxy.authority} closed the connection")

    def _tls_context(self) -> asyncio.Future[ssl.SSLContext]:
        if self._tls is None:
            self._tls = asyncio.ensure_future(asyncio.to_thread(self._make_tls))
            # A failure nobody awaited (TCP failed first) is not an "unretrieved exception".
            self._tls.add_done_callback(lambda done: done.cancelled() or done.exception())
        return self._tls

    async def aclose(self) -> None:
        """Close the idle connections; later requests fail."""
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()


def _basic(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode("utf-8")).decode("ascii")
