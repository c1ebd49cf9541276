"""Real sockets for the HTTP client's tests: a certificate authority, a scripted raw server and a
forward proxy, all on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Authority:
    """A CA file the client may trust, and a server context whose certificate it signed."""

    ca_file: Path
    server: ssl.SSLContext


def make_authority(
    folder: Path, names: tuple[str, ...] = ("localhost",), addresses: tuple[str, ...] = ("127.0.0.1",)
) -> Authority:
    """A CA and a server certificate for ``names`` and ``addresses``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agentls test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (names or addresses)[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    *(x509.DNSName(name) for name in names),
                    *(x509.IPAddress(ipaddress.ip_address(address)) for address in addresses),
                ]
            ),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_file = folder / "ca.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    chain = folder / "server.pem"
    chain.write_bytes(
        leaf.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(chain)
    return Authority(ca_file, server)


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    """One request: its request line, headers (lower-case names) and Content-Length body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    line, *rest = head.split("\r\n")
    headers = {}
    for item in rest:
        if ":" in item:
            name, _, value = item.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return line, headers, body


@dataclass
class RawServer:
    """Runs ``handler`` for each connection and counts the connections."""

    handler: Handler
    connections: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()


@dataclass
class Proxy:
    """A forward proxy: ``CONNECT`` tunnels, and absolute-form requests forwarded in origin form.

    ``credentials`` ("user:password"): requests without them get 407."""

    credentials: str | None = None
    seen: list[tuple[str, str | None]] = field(default_factory=list)  # (request line, proxy-authorization)
    server: RawServer | None = None

    async def __aenter__(self) -> Proxy:
        self.server = await RawServer(self._handle).__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        await self.server.__aexit__(*exc)

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, headers, body = await read_request(reader)
        auth = headers.get("proxy-authorization")
        self.seen.append((line, auth))
        if self.credentials and auth != "Basic " + base64.b64encode(self.credentials.encode()).decode():
            writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
            return
        method, target, version = line.split(" ")
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            rest = target.split("://", 1)[1]
            authority, _, path = rest.partition("/")
            host, _, port = authority.rpartition(":")
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            fields = "".join(f"{k}: {v}\r\n" for k, v in headers.items() if k != "proxy-authorization")
            up_writer.write(f"{method} /{path} {version}\r\n{fields}\r\n".encode("latin-1") + body)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True)
        up_writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()
