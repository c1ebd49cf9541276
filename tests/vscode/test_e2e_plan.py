"""A plan reviewed in a real VS Code (code-server + Chromium) with the extension, the real ``agentls
serve`` and the scripted fake model: the plan agent's plan opens as a Markdown editor with Approve /
Revise / Reject lenses and waits in the chat; a comment on one of its lines and a message reach the
plan agent as the revision request; the revised plan replaces it; Approve hands it to the build
agent, which edits. Screenshots go to ``tests/vscode/screenshots/plan``.
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

PLAN = ".agentls/plans/fix-add.md"
PLAN_TEXT = "# Fix add\n\n1. In calc.py, make add return a + b.\n2. Run the tests.\n"


@dataclass
class Run(Driven):
    model: FakeModelServer
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-plan")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
            Turn.tool_call("plan_exit", {"path": PLAN}),
            Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT + "3. Test negative numbers.\n"}),
            Turn.tool_call("plan_exit", {"path": PLAN}),
            Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
            Turn.text("add is fixed."),
        )
        titles.script(*[Turn.text("Plan") for _ in range(4)])
        settings = {"agentls.permission": {"edit": "allow"}}
        driven = drive(
            "e2e_plan.mjs", "plan", tmp, folder, fake_model_config(model, titles), settings=settings
        )
        yield Run(driven.result, driven.output, model, folder)


def test_the_plan_opens_as_markdown_with_its_answers_and_waits_in_the_chat(run: Run) -> None:
    r = run.phase("presented")
    assert "fix-add.md" in r["tab"], r
    lenses = r["lenses"][:3]
    assert [w in lens for w, lens in zip(("Approve plan", "Revise…", "Reject…"), lenses, strict=True)] == [
        True
    ] * 3, r
    assert "make add return a + b" in r["text"], r
    assert "Fix add" in r["card"]["text"] and PLAN in r["card"]["text"], r


def test_a_line_comment_and_a_message_reach_the_plan_agent(run: Run) -> None:
    r = run.phase("revise")
    assert any("which tests?" in t for t in r["thread"]), r
    assert any("Revise (1 comment)" in lens for lens in r["lensesWithComment"]), r
    told = str([m for m in run.model.requests[2].messages if m.get("role") == "tool"][-1])
    assert "line 3: 1. In calc.py, make add return a + b." in told, told
    assert "which tests?" in told and "Also cover negatives." in told, told
    assert "negative numbers" in r["revisedText"], r


def test_approve_in_the_chat_hands_the_plan_to_the_build_agent(run: Run) -> None:
    r = run.phase("approve")
    assert r["cards"] == 0 and r["planTabs"] == [], r
    build = str(run.model.requests[4].messages)
    assert "approved the plan" in build and "Test negative numbers" in build
    assert "a + b" in (run.folder / "calc.py").read_text()
