"""What a TCP door of agentls needs: the address it binds, the token a client must send, and, on
the client's side, where to find a host on another machine (``AGENTLS_HOST=tcp://HOST:PORT``).

`agentls serve --tcp` and `agentls host serve --tcp` share it. An agent that can run commands
must not be drivable by whoever reaches a port: the address is loopback unless the user says
otherwise (``--allow-remote``), and every connection must first send the token, which lives in an
owner-only file (generated, or ``--token-file``) or an environment variable (``--token-env``).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from core.errors import ConfigError

MIN_TOKEN = 16
# The first line of an HTTP request (a browser page, a proxy's probe): closed unanswered.
HTTP_REQUEST = re.compile(rb"[A-Z]{3,10} \S+ HTTP/\d")


@dataclass(frozen=True)
class Token:
    """The secret a client must send, where it came from (for messages) and a file to remove."""

    value: str
    source: str
    created: Path | None = None

    def matches(self, sent: object) -> bool:
        """Whether ``sent`` is the token (compared in constant time)."""
        return isinstance(sent, str) and secrets.compare_digest(sent.encode(), self.value.encode())


def load_token(token_file: str | None, token_env: str | None, default: Path) -> Token:
    """The token from ``--token-env``, an existing ``--token-file``, or a new one written to that
    file (``default`` when none is named); ConfigError says what is wrong."""
    if token_env:
        value = os.environ.get(token_env, "").strip()
        if len(value) < MIN_TOKEN:
            raise ConfigError(
                f"--token-env {token_env}: the variable must hold at least {MIN_TOKEN} characters"
            )
        return Token(value, f"the environment variable {token_env}")
    path = Path(token_file).expanduser() if token_file else default
    if token_file and path.exists():
        return Token(read_token_file(path, "--token-file"), str(path))
    value = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, value.encode() + b"\n")
    finally:
        os.close(fd)
    return Token(value, str(path), created=path)


def read_token_file(path: Path, what: str) -> str:
    """The token in ``path``, which must be an owner-only regular file (``what`` names it in errors)."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{what} {path}: not a regular file")
    if info.st_mode & 0o077:
        raise ConfigError(
            f"{what} {path}: others may read it (mode {stat.filemode(info.st_mode)}); chmod 600 it"
        )
    value = path.read_text(encoding="utf-8").strip()
    if len(value) < MIN_TOKEN:
        raise ConfigError(f"{what} {path}: the token must be at least {MIN_TOKEN} characters")
    return value


def check_host(host: str, allow_remote: bool) -> str:
    """The address to bind; ConfigError for one beyond loopback unless ``--allow-remote``."""
    bare = host.strip("[]") or "127.0.0.1"
    if bare == "localhost" or allow_remote:
        return bare
    try:
        loopback = ipaddress.ip_address(bare).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"--tcp {host}: not a loopback address; anyone who reaches it could drive the agent. "
            "Bind 127.0.0.1 (and forward the port), or add --allow-remote if you mean it"
        )
    return bare


def split_address(text: str, what: str) -> tuple[str, int]:
    """``HOST:PORT`` as its parts; ConfigError (naming ``what``) for anything else."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"{what} {text}: expected HOST:PORT with a port from 0 to 65535")
    return host, int(port)


def add_tcp_options(parser: argparse.ArgumentParser) -> None:
    """``--tcp`` and its token and address options (`python -m host`, `agentls host serve|start`;
    the CLI must not import ``host`` to add them: a project's own ``host`` package may shadow it)."""
    parser.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on this TCP address too, for front ends that send the token (loopback: forward it)",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token-file",
        metavar="FILE",
        help="--tcp: the token is in FILE (owner-only), written there when missing (default: new each start)",
    )
    token.add_argument("--token-env", metavar="NAME", help="--tcp: the token is in environment variable NAME")
    parser.add_argument(
        "--allow-remote", action="store_true", help="--tcp: allow an address beyond loopback (0.0.0.0, LAN)"
    )


@dataclass(frozen=True)
class TcpHost:
    """A host a front end reaches over TCP (on another machine, or through a forwarded port)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"tcp://{self.host}:{self.port}"


TCP_SCHEME = "tcp://"


def parse_tcp_host(text: str) -> TcpHost:
    """``tcp://HOST:PORT`` as a TcpHost; ConfigError when it is not one (port 0 reaches nothing)."""
    host, _, port = text.removeprefix(TCP_SCHEME).rpartition(":")
    if (
        not text.startswith(TCP_SCHEME)
        or not host.strip("[]")
        or not port.isdigit()
        or not 0 < int(port) < 65536
    ):
        raise ConfigError(f"the host address {text!r} is not tcp://HOST:PORT (a port from 1 to 65535)")
    return TcpHost(host.strip("[]"), int(port))


def client_token() -> str:
    """The token to send a host over TCP: ``AGENTLS_HOST_TOKEN``, else the file named by
    ``AGENTLS_HOST_TOKEN_FILE``; ConfigError when neither gives one."""
    value = os.environ.get("AGENTLS_HOST_TOKEN", "").strip()
    if value:
        return value
    named = os.environ.get("AGENTLS_HOST_TOKEN_FILE", "").strip()
    if not named:
        raise ConfigError(
            "no token: set AGENTLS_HOST_TOKEN, or AGENTLS_HOST_TOKEN_FILE to a file holding it "
            "(the host prints where it keeps its token)"
        )
    try:
        return read_token_file(Path(named).expanduser(), "AGENTLS_HOST_TOKEN_FILE")
    except OSError as exc:
        raise ConfigError(f"AGENTLS_HOST_TOKEN_FILE {named}: {exc.strerror}") from None
