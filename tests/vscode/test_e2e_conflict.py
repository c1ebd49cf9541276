"""Undoing an agent change the user has since edited, in a real VS Code (code-server + Chromium) with
the extension, the real ``agentls serve`` and the scripted fake model: the Changes view's labels follow
the editor's marks when the user types above them; the conflict dialog's Compare, Cancel, Keep Mine and
Use Original each do what they say. Screenshots go to ``tests/vscode/screenshots/conflict``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import drive, phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
CALC = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 8\n"


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    folder: Path

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-conflict")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    shots = tmp / "screenshots"
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "b = 2\n", "newString": "b = 20\n"}),
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "h = 8\n", "newString": "h = 80\n"}),
            Turn.text("Changed b and h."),
        )
        titles.script(*[Turn.text("Change b and h") for _ in range(3)])
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": fake_model_config(model, titles),
            "agentls.permission": {"edit": "allow"},
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            args = {"url": cs.url, "folder": str(folder), "shots": str(shots)}
            output, result = drive(HERE / "e2e_conflict.mjs", args, {})
            if not result.get("ok"):
                output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
        target = HERE / "screenshots" / "conflict"
        shutil.rmtree(target, ignore_errors=True)
        if shots.is_dir():
            shutil.copytree(shots, target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "driver.log").write_text(output)
        yield Run(result, output, folder)


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
