"""The mode of a new chat, shown and chosen before its first prompt, in a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model: a workspace
with no session opens a chat whose Mode picker shows Ask (the documented default); Plan picked there
with a click and the keys makes the first prompt's turn run in plan mode — the scripted edit is
refused with the plan-mode text and the file stays as it was. Screenshots go to
``tests/vscode/screenshots/newmode``.
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


@dataclass
class Run(Driven):
    model: FakeModelServer
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-newmode")
    folder = tmp / "project"
    folder.mkdir()
    hello = folder / "hello.py"
    hello.write_text("print('hello')\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        edit = {"filePath": str(hello), "oldString": "hello", "newString": "bye"}
        model.script(Turn.tool_call("edit", edit), Turn.text("PLANNED-ONLY"))
        titles.script(Turn.text("Plan first"))
        driven = drive("e2e_newmode.mjs", "newmode", tmp, folder, fake_model_config(model, titles))
        yield Run(driven.result, driven.output, model, folder)


def test_an_empty_chat_shows_its_mode_before_the_first_prompt(run: Run) -> None:
    r = run.phase("empty")
    assert r["picker"]["shown"] and r["picker"]["messages"] == 0, r
    assert (r["picker"]["value"], r["picker"]["label"]) == ("ask", "Ask"), r


def test_plan_chosen_before_the_first_prompt_runs_that_turn_in_plan_mode(run: Run) -> None:
    r = run.phase("plan-first")
    assert r["picked"]["value"] == "plan" and r["picked"]["label"] == "Plan", r
    assert r["after"]["value"] == "plan", r
    assert r["dialogs"] == 0, r  # refused, not asked about
    assert r["sessions"] == 1, r  # the prompt went to the session the empty chat showed
    assert (run.folder / "hello.py").read_text() == "print('hello')\n"
    # The first request already plans (the reminder); the refused edit tells the model why.
    first, second = run.model.requests[0], run.model.requests[1]
    assert "plan" in str(first.messages[-1]).lower()
    result = second.messages[-1]
    assert result["role"] == "tool" and "plan mode is on" in str(result["content"]), result
