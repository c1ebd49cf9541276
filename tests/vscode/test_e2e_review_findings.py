"""The agent's code review in a real VS Code (code-server + Chromium) with the extension, the real
``agentls serve`` and the scripted fake model: ``/review`` typed in the chat reviews the uncommitted
change, and its findings are rows of VS Code's own Problems list, with their source and severity.
Screenshots go to ``tests/vscode/screenshots/review-findings``."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
REVIEW = "1. [high] calc.py:2 - add() subtracts.\n2. [low] calc.py:5 - sub() has no docstring.\n"


@dataclass
class Run(Driven):
    model: FakeModelServer


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-review-findings")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    env = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=folder, check=True, env=env, capture_output=True)
    (folder / "calc.py").write_text(CALC)
    subprocess.run(["git", "add", "calc.py"], cwd=folder, check=True, env=env)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text(REVIEW))
        titles.script(*[Turn.text("Review") for _ in range(3)])
        config = fake_model_config(model, titles)
        driven = drive("e2e_review_findings.mjs", "review-findings", tmp, folder, config)
        yield Run(driven.result, driven.output, model)


def test_the_chat_s_review_sends_the_diff_to_the_model(run: Run) -> None:
    asked = str(run.model.requests[0].messages[-1])
    assert "Review the uncommitted changes in the working tree" in asked and "+    return a - b" in asked


def test_review_findings_are_rows_of_the_problems_list(run: Run) -> None:
    rows = [row for row in run.phase("review")["rows"] if "agentls review" in row]
    assert any("add() subtracts." in row for row in rows), rows
    assert any("sub() has no docstring." in row for row in rows), rows
