"""Sessions at scale in the real VS Code (code-server + Chromium), the real ``agentls serve`` and the
scripted fake model. A sub-agent: the task card shows the child session's steps live, nested and
folded by default; the child's permission dialog shows in the chat and names the task; "Open as
session" shows the child. The session menu's search box finds a session by what was said in it; a
session exports as Markdown. Screenshots go to ``tests/vscode/screenshots/scale``.
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

CALC = "def add(a, b):\n    return a - b\n"
TASK = {"description": "fix add", "prompt": "Fix add() in calc.py", "subagent_type": "general"}
EDIT = {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}


@dataclass
class Run(Driven):
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-scale")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    for name in ("a.py", "b.py", "c.py"):
        (folder / name).write_text("x = 1\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.text("Handing it to a sub-agent.", chunks=2).tool_call("task", TASK),
            Turn.text("Editing calc.py.", chunks=2).tool_call("edit", EDIT),  # the child: asks
            Turn.text("Fixed add().", chunks=2),
            Turn.text("The sub-agent fixed add().", chunks=3),
            Turn.text("Zebras have stripes.", chunks=2),  # a second session
            # Two sessions at once, each on its own dialog: B (in a tab), then A (in the sidebar).
            Turn.tool_call("edit", {"filePath": "b.py", "oldString": "x = 1", "newString": "x = 2"}),
            Turn.tool_call("edit", {"filePath": "a.py", "oldString": "x = 1", "newString": "x = 2"}),
            Turn.text("A is done.", chunks=3),
            Turn.text("B is done.", chunks=3),
            # C asks while no chat shows it: it waits for the driver's file, then edits.
            Turn.tool_call("bash", {"command": "while [ ! -e go ]; do sleep 0.1; done"}),
            Turn.tool_call("edit", {"filePath": "c.py", "oldString": "x = 1", "newString": "x = 2"}),
            Turn.text("C is done.", chunks=2),
        )
        titles.script(*[Turn.text("Sub-agent fix") for _ in range(10)])
        config = fake_model_config(model, titles, permission={"bash": "allow"})
        driven = drive("e2e_scale.mjs", "scale", tmp, folder, config)
        yield Run(driven.result, driven.output, folder)


def test_the_childs_dialog_shows_in_the_chat_naming_the_task(run: Run) -> None:
    r = run.phase("dialog")
    assert r["dialogTitle"] == "Allow edit?"
    assert r["dialogTask"] == "Asked by the task “fix add” (@general)"


def test_the_childs_steps_show_live_under_the_task_card_folded(run: Run) -> None:
    r = run.phase("dialog")
    assert r["foldedWhileRunning"] is True
    assert r["summaryWhileRunning"].startswith("Sub-agent:") and "running" in r["summaryWhileRunning"]
    assert any(s.startswith("◌running: edit") for s in r["stepsWhileRunning"]), r


def test_the_finished_child_is_nested_and_not_in_the_transcript(run: Run) -> None:
    r = run.phase("answered")
    assert "Editing calc.py." in r["steps"] and "Fixed add()." in r["steps"], r["steps"]
    assert any(s.startswith("✓done: edit") and s.endswith("calc.py") for s in r["steps"]), r["steps"]
    assert "running" not in r["summary"]
    assert r["stillOpen"] is True
    assert r["childTextInTranscript"] is False
    assert (run.folder / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_open_as_session_shows_the_child(run: Run) -> None:
    r = run.phase("open-child")
    assert "fix add" in r["title"]
    assert r["cards"] == ["edit"]


def test_the_session_search_box_finds_a_session_by_its_text(run: Run) -> None:
    r = run.phase("search")
    assert r["typedHits"] and not r["typedError"], r  # "sub-agent" as typed: found, no error
    assert "not valid FTS5 query syntax" in r["error"], r["error"]
    # The parent's answer matches; the sub-agent's own "Fixed add()." is in its parent's card.
    assert len(r["hits"]) == 1, r["hits"]
    assert r["hits"][0]["snippet"] == "The sub-agent fixed add()."
    assert r["hits"][0]["marks"] == ["fixed"]
    assert r["menuClosed"] is True


def test_a_session_exports_as_markdown(run: Run) -> None:
    r = run.phase("export")
    assert "Fix add() with a sub-agent" in r["text"], r["text"]
    assert "The sub-agent fixed add()." in r["text"], r["text"]
    assert "Untitled-1" in r["tab"], r["tab"]  # an untitled editor: the user saves it where they like


def test_two_sessions_wait_at_once_side_by_side_and_nothing_crosses_over(run: Run) -> None:
    r = run.phase("side-by-side")
    assert r["both"] == {"sidebar": ["Edit a.py"], "tab": ["Edit b.py"]}, r["both"]
    assert any(t.startswith("Sub-agent fix,") for t in r["tabs"]), r["tabs"]  # its tab, named after it
    # A answered: the sidebar's dialog is gone and A ended; the tab still waits, and says so.
    assert r["afterA"]["sidebar"] == [] and r["afterA"]["tab"] == ["Edit b.py"], r["afterA"]
    assert "A is done." not in r["afterA"]["tabAnswers"]
    assert r["afterA"]["tabStatus"].startswith("Working"), r["afterA"]
    assert "A is done." in r["afterB"]["sidebar"] and "B is done." not in r["afterB"]["sidebar"]
    assert "B is done." in r["afterB"]["tab"] and "A is done." not in r["afterB"]["tab"]
    assert r["files"] == {"a": "x = 2\n", "b": "x = 2\n"}
    assert r["notices"] == []  # both dialogs were on screen: no notification


def test_a_dialog_of_a_session_on_no_screen_shows_a_notice_that_takes_the_user_there(run: Run) -> None:
    r = run.phase("notice")
    # One notice per dialog (the notifications of issue 26), naming the session whose task asks.
    expected = 'agentls: the agent asks to edit and waits for your answer ("Sub-agent fix").'
    assert r["notice"] == expected, r["notice"]
    assert r["dialogs"] == ["Edit c.py"]
    assert (run.folder / "c.py").read_text() == "x = 2\n"
