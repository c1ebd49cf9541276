"""The early ``initialize`` answer (lsp_server/handshake.py) is the full server's answer, and the
full server takes over the stream after it without losing or repeating anything."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp.clients import __file__ as clients_init

from lsp_server import handshake
from lsp_server.features import build_server
from lsp_server.rpc import dispatch
from tests.lsp.editor import uri
from tests.lsp.raw import RawServer, frame

PROFILES = sorted(Path(clients_init).parent.glob("*.json"))
# What pygls looks at in a client's capabilities besides the profiles' usual fields.
SYNTHETIC: dict[str, dict[str, Any]] = {
    "empty": {},
    "utf-8 first": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    "utf-32 only": {"general": {"positionEncodings": ["utf-32"]}},
    "unknown encodings": {"general": {"positionEncodings": ["utf-7", "latin-1"]}},
    "no encodings": {"general": {}},
    "every optional feature": {
        "textDocument": {
            "synchronization": {"willSave": True, "willSaveWaitUntil": True, "didSave": True},
            "rename": {"prepareSupport": True},
        },
        "workspace": {
            "fileOperations": {
                "willCreate": True,
                "didCreate": True,
                "willDelete": True,
                "didDelete": True,
                "willRename": True,
                "didRename": True,
            }
        },
        "notebookDocument": {"synchronization": {"dynamicRegistration": True}},
    },
}


class Collect:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.frames.append(json.loads(data[data.index(b"\r\n\r\n") + 4 :]))

    def close(self) -> None:
        pass


def full_frame(message: dict[str, Any]) -> dict[str, Any]:
    """What the full server (pygls, every feature registered) answers to one message."""
    server = build_server()
    out = Collect()
    server.protocol.set_writer(out)
    dispatch(server.protocol, json.dumps(message).encode())
    [answer] = out.frames
    return answer


def full_answer(params: dict[str, Any]) -> Any:
    answer = full_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert "result" in answer, answer
    return answer["result"]


def capabilities_of(profile: Path) -> dict[str, Any]:
    data = json.loads(profile.read_text())
    caps: dict[str, Any] = data.get("capabilities", data)
    return caps


@pytest.mark.parametrize(
    "caps",
    [capabilities_of(p) for p in PROFILES] + list(SYNTHETIC.values()),
    ids=[p.stem for p in PROFILES] + list(SYNTHETIC),
)
def test_the_early_answer_is_the_full_servers(caps: dict[str, Any]) -> None:
    params = {"processId": None, "rootUri": None, "capabilities": caps}
    assert handshake.answerable({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    expected = full_answer(params)
    assert handshake.result(params) == expected, (
        "lsp_server/handshake.py CAPABILITIES no longer match the server; set them to "
        + json.dumps({k: v for k, v in expected["capabilities"].items() if k != "positionEncoding"})
    )


BASE: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}
# Initialize messages of every shape the early path and the full server could judge differently.
SHAPES: dict[str, dict[str, Any]] = {
    "plain": {},
    "no processId": {"processId": ...},
    "string processId": {"processId": "1"},
    "huge processId": {"processId": 2**70},
    "object processId": {"processId": {"pid": 1}},
    "no rootUri": {"rootUri": ...},
    "rootUri a number": {"rootUri": 5},
    "rootPath a number": {"rootPath": 5},
    "locale a number": {"locale": 5},
    "trace unknown": {"trace": "loud"},
    "trace verbose": {"trace": "verbose"},
    "clientInfo a number": {"clientInfo": 5},
    "clientInfo without a name": {"clientInfo": {}},
    "clientInfo name a number": {"clientInfo": {"name": 3}},
    "workspaceFolders a string": {"workspaceFolders": "x"},
    "workspaceFolders bad item": {"workspaceFolders": [{"uri": 1}]},
    "workspaceFolders fine": {"workspaceFolders": [{"uri": "file:///tmp/x", "name": "x"}]},
    "initializationOptions a string": {"initializationOptions": "x"},
    # Next edits announce inlineCompletion only when asked for (lsp_server/next_edits.py).
    "nextEdits on": {"initializationOptions": {"nextEdits": True}},
    "nextEdits off": {"initializationOptions": {"nextEdits": False}},
    "capabilities a list": {"capabilities": []},
    "capabilities missing": {"capabilities": ...},
    "capabilities.window a list": {"capabilities": {"window": []}},
    "capabilities.workspace a number": {"capabilities": {"workspace": 5}},
    "hover contentFormat a number": {"capabilities": {"textDocument": {"hover": {"contentFormat": 5}}}},
    "an enum value from a newer client": {
        "capabilities": {"workspace": {"symbol": {"symbolKind": {"valueSet": [1, 999]}}}}
    },
    "general a number": {"capabilities": {"general": 5}},
    "positionEncodings a string": {"capabilities": {"general": {"positionEncodings": "utf-8"}}},
    "positionEncodings numbers first": {"capabilities": {"general": {"positionEncodings": [1, "utf-8"]}}},
    "willSave a string": {"capabilities": {"textDocument": {"synchronization": {"willSave": "yes"}}}},
    "synchronization a number": {"capabilities": {"textDocument": {"synchronization": 5}}},
    "params a list": {"params": []},
    "params missing": {"params": ...},
    "bool id": {"id": True},
    "object id": {"id": {"a": 1}},
    "jsonrpc 1.0": {"jsonrpc": "1.0"},
}


def shape(name: str) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": dict(BASE)}
    for key, value in SHAPES[name].items():
        target = message if key in ("id", "jsonrpc", "params") else message["params"]
        if value is ...:
            del target[key]
        else:
            target[key] = value
    return message


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_early_path_and_the_full_server_agree(name: str, caplog: pytest.LogCaptureFixture) -> None:
    message = shape(name)
    early = handshake.answerable(message)
    with caplog.at_level(logging.INFO):
        answer = full_frame(message)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    if "error" in answer:
        assert not early, f"answered early, but the full server refuses it: {answer}"
        assert answer["error"]["code"] in (-32600, -32602), answer
        if not handshake.valid_id(message["id"]):
            assert answer["id"] is None
        return
    assert early, f"the full server accepts it, the early path should answer it: {answer}"
    assert handshake.result(handshake.read_params(message["params"])[0]) == answer["result"]
    inline = "inlineCompletionProvider" in answer["result"]["capabilities"]
    assert inline == (name == "nextEdits on")


def test_a_different_full_answer_is_logged_and_dropped(caplog: pytest.LogCaptureFixture) -> None:
    early = handshake.Early(pending=b"", body=b"{}", msg_id=7, answer={"capabilities": {}})
    out = Collect()
    writer = handshake.AnsweredWriter(out, early)
    writer.write(handshake.frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}}))
    with caplog.at_level(logging.ERROR):
        writer.write(handshake.frame({"id": 7, "jsonrpc": "2.0", "result": {"capabilities": {"x": 1}}}))
    writer.write(handshake.frame({"id": 7, "jsonrpc": "2.0", "result": None}))  # a later id 7 goes out
    assert [m.get("method", m.get("id")) for m in out.frames] == ["window/logMessage", 7]
    assert "answered early" in caplog.text


def test_the_server_takes_over_everything_sent_with_initialize(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    params = {"processId": None, "rootUri": uri(root), "capabilities": {}, "clientInfo": {"name": "raw-test"}}
    server = RawServer(root, tmp_path / "data")
    try:
        # One write: the early reader gets the following frames in the same read as initialize.
        server.write(
            frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            + frame({"jsonrpc": "2.0", "id": 2, "method": "agent/session/list", "params": {}})
        )
        seen: list[dict[str, Any]] = []
        while not any(m.get("id") == 2 for m in seen):
            message = server.frames.get(timeout=60)
            assert message is not None, server.log
            seen.append(message)
        assert server.request("shutdown") is None
        server.notify("exit")
        assert server.wait_exit(timeout=30) == 0
        while (message := server.frames.get(timeout=5)) is not None:
            seen.append(message)
        answers = [m for m in seen if "method" not in m]
        assert [m["id"] for m in answers] == [1, 2]  # initialize answered once, and first
        assert answers[0]["result"]["serverInfo"]["name"] == "agentls"
        # The process that answers names itself (the VS Code client reads it instead of the library's child).
        assert answers[0]["result"]["capabilities"]["experimental"]["agent"]["processId"] == server.proc.pid
        assert answers[1]["result"] == {"sessions": []}
        assert not any("answered early" in line for line in server.log), server.log
    finally:
        server.close()
