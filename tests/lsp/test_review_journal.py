"""Review through the real server with snapshots off (the edit journal is the fallback): an undo
after another undo of the same step, in a server started again, is not a false conflict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from tests.lsp.conftest import agent_config, connect
from tests.lsp.editor import PLUGIN, uri
from tests.lsp.test_review import _two_edits


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model, snapshot={"enabled": False})}


async def test_undo_after_a_restart_finds_the_agents_lines(
    tmp_path: Path, project: Path, model: FakeModelServer, options: Any
) -> None:
    path = project / "hello.py"
    async for first in connect(tmp_path, project, PLUGIN, options):
        sid, hunks = await _two_edits(first, model)
        assert [h["after"] for h in hunks] == [["B\n"], ["D\n"]]
        first.editor.type(path, "# mine\na\nB\nc\nD\ne\n")
        result = await first.call("agent/review/undo", {"sessionID": sid, "hunkIDs": [hunks[0]["id"]]})
        assert result["conflicts"] == []
        assert first.editor.buffers[uri(path)].text == "# mine\na\nb\nc\nD\ne\n"
    assert path.read_text() == "# mine\na\nb\nc\nD\ne\n"  # the plugin saved the undo
    async for second in connect(tmp_path, project, PLUGIN, options):
        second.editor.open(path, path.read_text())
        result = await second.call("agent/review/undo", {"sessionID": sid})
        assert result["conflicts"] == []
        assert [h["id"] for h in result["changed"]] == [hunks[1]["id"]]
        assert second.editor.buffers[uri(path)].text == "# mine\na\nb\nc\nd\ne\n"
