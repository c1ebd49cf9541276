"""A PostToolUse formatter in an editor: its change reaches the open buffer through the editor (one
more edit, labelled as the hook's), the disk and the buffer agree, and each run is a ``hook`` part
of the transcript."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import PLUGIN, uri


def formatter(folder: Path) -> str:
    path = folder / "fmt.py"
    path.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)['tool_input']['file_path']\n"
        "t = open(p).read()\n"
        "open(p, 'w').write(t.replace('(  ', '(').replace('  )', ')'))\n"
    )
    return f"{sys.executable} {path}"


@pytest.fixture
def options(tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer) -> Any:
    hooks = {"PostToolUse": [{"matcher": "Edit", "hooks": [{"command": formatter(tmp_path)}]}]}
    return {"config": agent_config(model, title_model, hooks=hooks, permission="allow")}


async def test_a_formatter_hook_changes_the_open_buffer_through_the_editor(
    server: Connected, model: FakeModelServer
) -> None:
    connected = server
    path = connected.root / "hello.py"
    path.write_text("print('hello')\n")
    connected.editor.open(path, "print('hello')\n")
    edit = {"filePath": str(path), "oldString": "('hello')", "newString": "(  'bye'  )"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Changed."))
    session = await connected.call("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "change"}]}
    await connected.call("agent/session/prompt", params)
    assert path.read_text() == "print('bye')\n"
    if connected.profile == PLUGIN:  # a stock editor reloads the file the server wrote to disk
        assert connected.editor.buffers[uri(path)].text == "print('bye')\n"
        assert [e.label for e in connected.editor.edits][1:] == ["hook"]
    messages = (await connected.call("agent/session/messages", {"sessionID": session["id"]}))["messages"]
    runs = [p for m in messages for p in m["parts"] if p["type"] == "hook"]
    assert [(r["event"], r["exitCode"], r["source"]) for r in runs] == [("PostToolUse", 0, "agentls config")]
