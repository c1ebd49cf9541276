"""Stock Neovim 0.11 (no agentls plugin) against the real server: one headless session, every bullet.

The user's whole setup is ``vim.lsp.config('agentls', {...})`` + ``vim.lsp.enable('agentls')``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_scenario.lua")


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_stock_neovim(tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]) -> None:
    nvim = tool("nvim")
    main, titles = models
    project = h.make_project(tmp_path)
    stalled_at = h.script_model(main, project)
    h.signal_when(main, stalled_at, project.busy)
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, titles),
        "hello": str(project.hello),
        "unsaved": str(project.unsaved),
        "model_busy": str(project.busy),
        "result": str(result_path),
        # Two edits allowed, then the bash permission dismissed with Escape.
        "answers": ["Allow once", "Allow once", None],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    done = h.run_editor([nvim, "--headless", "--clean", "-c", f"luafile {SCENARIO}"], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    # The server is gone within 2 s of the editor quitting.
    assert h.gone_within(h.server_pid(project), 2.0), "agentls serve outlived Neovim"

    edits = out["edits"]
    steps = {step["name"]: step for step in out["steps"]}
    assert steps["edits"]["result"]["text"] == "Edited twice."
    # The read saw the unsaved buffer, not the disk.
    read_result = str(main.requests[1].messages)
    assert "only in the buffer" in read_result and "on disk" not in read_result
    # Both edits: on disk, and in the buffer after the editor's own reload, without any prompt.
    assert edits["disk"] == h.EDITED
    assert edits["buffer"] == h.EDITED
    assert edits["modified"] is False
    assert out["conflicts"] == []
    # One undo restores the text before the turn.
    assert edits["after_undo"] == h.HELLO
    # The user's next edit and save: no "changed since reading" warning, the disk has it all.
    assert edits["after_write"] == h.EDITED + "# the user was here\n"
    assert edits["warning"] == ""
    # Two dialogs allowed, the third dismissed: the tool did not run, the turn ended.
    assert [d["answer"] for d in out["dialogs"]] == ["Allow once", "Allow once", None]
    # The dialogs say what would change: the file, +N -M and the lines; the command line.
    edit_dialog = out["dialogs"][0]["prompt"]
    assert "agentls wants to edit hello.py (+1 -1):\n-    return 'hello'\n+    return 'bye'" in edit_dialog
    assert f"agentls wants to run: {h.dismissed_command(project)}" in out["dialogs"][2]["prompt"]
    assert steps["dismissed"]["done"] is True
    assert not project.marker.exists()
    # Cancel: the request ends with RequestCancelled and the next prompt does not queue behind it.
    assert steps["after cancel"]["text"] == "Right after the cancel."
    assert "aborted" in out["errors"]
    assert steps["after cancel"]["ms"] < 5000
    # The async prompt answered at once; its answer came as a message. The tool steps did not (each
    # message is a hit-enter prompt in stock Neovim): they are in $/progress and the log.
    assert steps["async"]["result"]["async"] is True
    assert out["messages"].count("the long job is done") == 1
    assert "▶" not in out["messages"] and "✓" not in out["messages"]
