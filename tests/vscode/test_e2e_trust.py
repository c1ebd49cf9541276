"""A permission dialog is answered only by a deliberate act on it: a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model asking to run a
bash command. While the dialog waits, the user types into the command palette (F1) and into an editor,
pressing Escape in each; the dialog must still wait. Keys on the dialog itself then allow the command,
which runs. Screenshots go to ``tests/vscode/screenshots/trust``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.phases import model_server
from tests.vscode.scenario import Driven, drive

WORD = "trusted-run-7731"


@dataclass
class Run(Driven):
    model: FakeModelServer
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-trust")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("notes\n")
    release = asyncio.Event()
    with model_server() as (model, loop), FakeModelServer.threaded() as titles:
        model.script(
            # held back until the driver is typing in the palette: the dialog appears under its keys
            Turn.tool_call("bash", {"command": f"echo {WORD}", "description": "Print it"}).slow_first_byte(
                release
            ),
            Turn.tool_call("bash", {"command": f"echo {WORD}-again", "description": "Print it again"}),
            Turn.text("Printed it."),
        )
        titles.script(*[Turn.text("Print a word") for _ in range(3)])
        config = fake_model_config(model, titles)
        signals = {"release-call": lambda: loop.call_soon_threadsafe(release.set)}
        asks = {"agentls.permission": {"bash": "ask"}}
        driven = drive("e2e_trust.mjs", "trust", tmp, folder, config, settings=asks, signals=signals)
        yield Run(driven.result, driven.output, model, folder)


def test_a_dialog_arriving_while_typing_in_the_palette_leaves_the_keys_there(run: Run) -> None:
    r = run.phase("arrives")
    assert r["palette"] is not None, r
    assert r["palette"]["value"] == ">View: Toggle Word Wrap", r
    assert len(r["dialogs"]) == 1, r
    assert (r["prompt"] or "") == "", r
    assert r["chatKeys"] == [], r  # not one key reached the chat


def test_the_dialog_has_the_chats_focus(run: Run) -> None:
    r = run.phase("dialog")
    assert len(r["dialogs"]) == 1, r
    assert "permission" in r["focus"], r


def test_typing_in_the_palette_does_not_answer_the_dialog(run: Run) -> None:
    r = run.phase("palette")
    assert len(r["dialogs"]) == 1, r
    # The command name went to the palette, not to the chat's prompt box.
    assert "Word Wrap" not in (r["prompt"] or ""), r


def test_typing_in_an_editor_does_not_answer_the_dialog(run: Run) -> None:
    r = run.phase("editor")
    assert len(r["dialogs"]) == 1, r


def test_keys_on_the_dialog_itself_answer_it_and_the_command_runs(run: Run) -> None:
    r = run.phase("answer")
    assert r["focused"] == "once", r
    assert r["before"]["dialogs"][0] not in r["dialogs"], r
    tool_results = [m for m in run.model.requests[1].messages if m.get("role") == "tool"]
    assert WORD in json.dumps(tool_results), tool_results


def test_a_dialog_arriving_while_the_chat_has_the_keyboard_takes_the_focus(run: Run) -> None:
    r = run.phase("in-chat")
    assert r["focusedDialog"] not in (None, run.phase("answer")["before"]["dialogs"][0]), r
    assert r["dialogs"] == [], r
    tool_results = [m for m in run.model.requests[2].messages if m.get("role") == "tool"]
    assert f"{WORD}-again" in json.dumps(tool_results), tool_results
