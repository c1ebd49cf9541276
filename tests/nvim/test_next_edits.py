"""The Neovim plugin's ``next_edits`` option in a real headless Neovim with the real ``agentls serve``
and the scripted fake models (the small model answers next edits): on, the server is told, and
after the agent renames a parameter the code action "Apply the agent's pattern here" appears at the
next call, applies in one undo step and joins the agent's review; off, the server announces nothing
and the small model is never asked for an edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from demo.fake_script import Turn
from tests.nvim.harness import Nvim

UTIL = "def send(msg, loud=False):\n    return msg.upper() if loud else msg\n"
RENAMED = "def send(text, loud=False):\n    return text.upper() if loud else text\n"
MAIN = 'from util import send\n\nsend(msg="hi")\nsend(msg="bye", loud=True)\n'


def run(nvim: Nvim, tmp_path: Path, on: bool) -> dict[str, Any]:
    (nvim.project / "util.py").write_text(UTIL)
    (nvim.project / "main.py").write_text(MAIN)
    nvim.extra_config["permission"]["edit"] = "allow"
    edit = {"filePath": "util.py", "oldString": UTIL, "newString": RENAMED}
    nvim.model.script(Turn.tool_call("edit", edit), Turn.text("Renamed."))
    nvim.titles.script_for('Line to rewrite:\nsend(msg="hi")', Turn.text('send(text="hi")'))
    nvim.titles.script_for('Line to rewrite:\nsend(msg="bye"', Turn.text('send(text="bye", loud=True)'))
    out = tmp_path / "out.json"
    flag = "1" if on else "0"
    nvim.run("next_edits.lua", timeout=120, AGENTLS_TEST_NEXT_EDITS=flag, AGENTLS_TEST_OUT=str(out)).check()
    seen: dict[str, Any] = json.loads(out.read_text())
    seen["asked"] = [
        r.first_user_text for r in nvim.titles.requests if r.first_user_text.startswith("Pattern:")
    ]
    return seen


def test_on_the_server_is_told_and_the_agents_pattern_is_offered_applied_and_reviewed(
    nvim: Nvim, tmp_path: Path
) -> None:
    seen = run(nvim, tmp_path, True)
    assert seen["announced"] is True, seen
    assert "Apply the agent's pattern here (`msg` was renamed to `text`)" in seen["titles"], seen
    assert seen["applied"][3] == 'send(text="bye", loud=True)', seen
    assert sorted(seen["review"]) == ["main.py", "util.py"], seen
    assert seen["undone"][3] == 'send(msg="bye", loud=True)', seen  # one undo step
    assert seen["asked"] and all("`msg` was renamed to `text`" in text for text in seen["asked"]), seen


def test_off_nothing_is_announced_offered_or_asked(nvim: Nvim, tmp_path: Path) -> None:
    seen = run(nvim, tmp_path, False)
    assert seen["announced"] is False, seen
    assert not any("pattern" in title for title in seen["titles"]), seen
    assert seen["asked"] == [], seen
