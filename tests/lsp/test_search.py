"""`agent/session/search` and `agent/session/export` through the real server, after real turns."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import errors
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import server_env


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


async def _turn(plugin: Connected, text: str) -> str:
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": text}]})
    return sid


async def test_search_finds_what_was_said_in_a_turn(plugin: Connected, model: FakeModelServer) -> None:
    model.script(
        Turn.text("Zebras have stripes — black on white.", chunks=5),
        Turn.text("Okapis are shy.", chunks=3),
    )
    zebra = await _turn(plugin, "tell me about zebras")
    okapi = await _turn(plugin, "and okapis? 🦓 stripes too?")
    # The streamed answer, indexed once it ended; the user's prompt too; newest first.
    found = await plugin.call("agent/session/search", {"query": "stripes"})
    assert [h["session"]["id"] for h in found["hits"]] == [okapi, zebra]
    by_user, by_model = found["hits"]
    assert by_user["snippet"] == "and okapis? 🦓 stripes too?"
    # UTF-16 offsets: the emoji counts as two, as in a JavaScript string
    assert by_user["highlights"] == [[15, 22]]
    assert by_model["snippet"] == "Zebras have stripes — black on white."
    assert by_model["highlights"] == [[12, 19]]
    messages = (await plugin.call("agent/session/messages", {"sessionID": zebra}))["messages"]
    answer = messages[1]
    assert by_model["messageID"] == answer["info"]["id"]
    assert by_model["partID"] in [p["id"] for p in answer["parts"]]

    since = answer["info"]["time"]["created"] + 10**9
    assert (await plugin.call("agent/session/search", {"query": "stripes", "since": since}))["hits"] == []
    only = await plugin.call("agent/session/search", {"query": "stripes", "agent": "plan"})
    assert only["hits"] == []


# What users typed into the clients' search boxes (VS Code's session search, Neovim's picker).
TYPED = [
    ("foo-bar", True),
    ("build: foo-bar", True),
    ('"unclosed', False),
    ("fix AND run", True),
    ("OR", False),
    ("NEAR(a b)", False),
    ("foo*", True),
    ("*", False),
    ("(deploy)", True),
    ("naïve", True),
    ("日本語", True),
]


async def test_typed_text_is_never_a_syntax_error(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("Done."))
    sid = await _turn(plugin, "build: fix the foo-bar flag and run (deploy) naive 日本語")
    for query, found in TYPED:
        hits = (await plugin.call("agent/session/search", {"query": query}))["hits"]
        assert [h["session"]["id"] for h in hits] == ([sid] if found else []), query


async def test_a_bad_fts_query_is_invalid_params(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/search", {"query": 'fts:"unclosed'})
    assert caught.value.code == errors.INVALID_PARAMS
    assert "not valid FTS5 query syntax" in caught.value.message


async def test_export_is_the_same_markdown_as_the_cli(
    plugin: Connected, model: FakeModelServer, tmp_path: Path
) -> None:
    model.script(
        Turn.tool_call("read", {"filePath": str(plugin.root / "hello.py")}), Turn.text("It prints hello.")
    )
    sid = await _turn(plugin, "what does hello.py print?")
    exported = await plugin.call("agent/session/export", {"sessionID": sid})
    assert exported["format"] == "md"
    text = exported["text"]
    assert "<summary>Tool: read" in text and "print('hello')" in text and "It prints hello." in text
    cli = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "agentls", "sessions", "export", sid, "--format", "md"],
        cwd=plugin.root,
        env=server_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == text
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/export", {"sessionID": "ses_missing"})
    assert caught.value.code == errors.NOT_FOUND
