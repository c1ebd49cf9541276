"""The host's wire: JSON-RPC 2.0 messages, one JSON object per line (UTF-8, ``\\n``-terminated).

Newline-delimited JSON keeps both ends small: JSON never holds a raw newline, so a line is a
message. A line longer than ``MAX_FRAME`` or one that is not a JSON object ends the connection with
``WireError`` (nothing after it can be trusted). ``PROTOCOL`` changes whenever a message's meaning
does: the first exchange (``hello``) compares it, and a mismatch is refused with a message.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported by the reader only: a relayed `agentls run` speaks the wire without asyncio
    import asyncio

PROTOCOL = 2  # 2: the host calls back what a front end lends (``lent``)
MAX_FRAME = 64 * 1024 * 1024  # a transcript page with pasted files fits; a runaway line does not

# JSON-RPC error codes of the host (the -32000 range is the server's own).
PROTOCOL_MISMATCH = -32010
ENVIRONMENT_MISMATCH = -32011
HOST_REPLACED = -32012
NOT_ATTACHED = -32013
UNAUTHORIZED = -32015  # over TCP: a first message that is not a hello with the host's token
VERSION_MISMATCH = -32016  # over TCP: another agentls version (a remote host is not replaced)
NO_DIRECTORY = -32017  # `open` of a folder the host cannot see (over TCP: not on its machine)
AGENT_ERROR = -32020
OS_ERROR = -32021  # a lent workspace's file error (data.errno): raised again as that OSError


class WireError(Exception):
    """The byte stream is not the host's wire: the connection is closed."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as its line."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream. WireError: an oversized line, a line
    cut off by the end of the stream, or a line that is not a JSON object."""
    import asyncio

    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise WireError(f"the stream ended inside a message ({len(exc.partial)} bytes)") from None
    except asyncio.LimitOverrunError:
        raise WireError(f"a message longer than {MAX_FRAME} bytes") from None
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"a message that is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("a message that is not a JSON object")
    return message
