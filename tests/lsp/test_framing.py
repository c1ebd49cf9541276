"""One ``Content-Length`` rule for both ``initialize`` paths (issue #43): the early read (the first
frame, answered before pygls loads) and the full server's reader (every later frame) accept the same
header blocks and refuse the same ones, with the reason in the log. Real ``agentls serve`` processes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.framing import FramingError, Headers
from tests.lsp.editor import uri
from tests.lsp.raw import RawServer, frame

BODY = (
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "capabilities": {}}}'
)
N = len(BODY)

# Header blocks the rule refuses, and the reason it gives.
REFUSED: dict[str, tuple[bytes, str]] = {
    "two different lengths": (
        b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (N, N + 1),
        "two different",
    ),
    "two lengths, other case": (
        b"content-length: %d\r\nCONTENT-LENGTH: %d\r\n\r\n" % (N + 1, N),
        "two different",
    ),
    "not a number": (b"Content-Length: abc\r\n\r\n", "bad Content-Length"),
    "negative": (b"Content-Length: -5\r\n\r\n", "bad Content-Length"),
    "a sign": (b"Content-Length: +%d\r\n\r\n" % N, "bad Content-Length"),
    "an exponent": (b"Content-Length: 1e3\r\n\r\n", "bad Content-Length"),
    "too large": (b"Content-Length: 999999999999\r\n\r\n", "bad Content-Length"),
    "no length": (b"Content-Type: application/json\r\n\r\n", "without a Content-Length"),
    "not a header": (b"Content-Length %d\r\n\r\n" % N, "not a header line"),
    "a bad name": (b"Content Length: %d\r\n\r\n" % N, "not a header line"),
}
# Header blocks the rule accepts.
ACCEPTED: dict[str, bytes] = {
    "plain": b"Content-Length: %d\r\n\r\n" % N,
    "the same length twice": b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (N, N),
    "lower case": b"content-length: %d\r\n\r\n" % N,
    "with a type": b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    % N,
    "LF line ends": b"Content-Length: %d\n\n" % N,
    # Past what the early read takes (8 KiB): the full server's reader answers it.
    "a long header block": b"X-Pad: 1\r\n" * 1200 + b"Content-Length: %d\r\n\r\n" % N,
}


def _feed(block: bytes) -> int | None:
    headers = Headers()
    for line in block.splitlines(keepends=True):
        if headers.feed(line):
            return headers.length
    return None


@pytest.mark.parametrize(("block", "reason"), list(REFUSED.values()), ids=list(REFUSED))
def test_the_rule_refuses(block: bytes, reason: str) -> None:
    with pytest.raises(FramingError, match=reason):
        _feed(block)


@pytest.mark.parametrize("block", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_the_rule_accepts(block: bytes) -> None:
    assert _feed(block) == N


@pytest.fixture
def raw(tmp_path: Path, project: Path) -> Iterator[RawServer]:
    server = RawServer(project, tmp_path / "data")
    yield server
    server.close()


@pytest.mark.parametrize("path", ["first frame", "after initialize"])
@pytest.mark.parametrize(("block", "reason"), list(REFUSED.values()), ids=list(REFUSED))
def test_both_paths_stop_on_a_refused_header_with_the_reason(
    raw: RawServer, path: str, block: bytes, reason: str
) -> None:
    body = BODY
    if path == "after initialize":
        raw.initialize()
        body = json.dumps({"jsonrpc": "2.0", "id": 50, "method": "agent/config", "params": {}}).encode()
        block = block.replace(b"%d" % N, b"%d" % len(body)).replace(b"%d" % (N + 1), b"%d" % (len(body) + 1))
    # The editor goes on writing after the broken frame, as a real one does.
    raw.write(block + body + frame({"jsonrpc": "2.0", "id": 100, "method": "shutdown"}))
    code = raw.wait_exit(30.0)
    assert code == 1, "\n".join(raw.log)
    stops = [line for line in raw.log if "stopping: broken framing from the client" in line]
    assert len(stops) == 1 and reason in stops[0], "\n".join(raw.log)
    if path == "first frame":  # nothing was answered: not by the early path, not by the server
        with pytest.raises(EOFError):
            raw.next(lambda m: True, timeout=10.0)


@pytest.mark.parametrize("block", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_both_paths_answer_an_accepted_header(raw: RawServer, block: bytes) -> None:
    params = {"processId": None, "rootUri": uri(raw.root), "capabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()
    raw.write(block.replace(b"%d" % N, b"%d" % len(body)) + body)
    assert "capabilities" in raw.answer(1)["result"]
    raw.notify("initialized", {})
    body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "agent/session/list", "params": {}}).encode()
    raw.write(block.replace(b"%d" % N, b"%d" % len(body)) + body)
    assert "sessions" in raw.answer(2)["result"]
