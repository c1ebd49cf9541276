"""Undoing an agent change the user has since edited, in a real VS Code (code-server + Chromium) with
the extension, the real ``agentls serve`` and the scripted fake model: the Changes view's labels follow
the editor's marks when the user types above them; the conflict dialog's Compare, Cancel, Keep Mine and
Use Original each do what they say. Screenshots go to ``tests/vscode/screenshots/conflict``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

CALC = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 8\n"


@dataclass
class Run(Driven):
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-conflict")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "b = 2\n", "newString": "b = 20\n"}),
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "h = 8\n", "newString": "h = 80\n"}),
            Turn.text("Changed b and h."),
        )
        titles.script(*[Turn.text("Change b and h") for _ in range(3)])
        config = fake_model_config(model, titles)
        edits = {"agentls.permission": {"edit": "allow"}}
        driven = drive("e2e_conflict.mjs", "conflict", tmp, folder, config, settings=edits)
        yield Run(driven.result, driven.output, folder)


def test_the_changes_view_labels_follow_lines_typed_above(run: Run) -> None:
    r = run.phase("labels-follow")
    assert any("line 2" in row for row in r["before"]) and any("line 8" in row for row in r["before"]), r
    assert any("line 5" in row for row in r["after"]) and any("line 11" in row for row in r["after"]), r


def test_the_conflict_dialog_offers_each_choice(run: Run) -> None:
    r = run.phase("compare-then-cancel")
    assert "was not undone" in r["dialog"]["message"], r
    assert {"Compare", "Keep Mine", "Use Original", "Cancel"} <= set(r["dialog"]["buttons"]), r


def test_compare_shows_both_versions_and_asks_again_and_cancel_changes_nothing(run: Run) -> None:
    r = run.phase("compare-then-cancel")
    assert "yours now" in r["compareTab"], r
    assert r["again"] is not None, r
    assert "b = 21" in r["text"], r
    assert len(r["lenses"]) == 4, r


def test_keep_mine_keeps_the_users_line_and_ends_the_hunk(run: Run) -> None:
    r = run.phase("keep-mine")
    assert "b = 21" in r["text"], r
    assert len(r["lenses"]) == 2, r


def test_use_original_puts_back_the_line_from_before_the_agent(run: Run) -> None:
    r = run.phase("use-original")
    assert "h = 81" not in r["text"] and "h = 80" not in r["text"], r
    assert r["lenses"] == [], r
