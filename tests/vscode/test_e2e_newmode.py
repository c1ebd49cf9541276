"""The mode of a new chat, shown and chosen before its first prompt, in a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model: a workspace
with no session opens a chat whose Mode picker shows Ask (the documented default) and stores no
session, not even across a window reload; Plan picked there with a click and the keys makes the
session, and the first prompt's turn runs in plan mode — the scripted edit is refused with the
plan-mode text and the file stays as it was. "New Session" opens an empty chat that stores nothing
until it is used. Screenshots go to ``tests/vscode/screenshots/newmode``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT
from tests.vscode.scenario import Driven, drive


@dataclass
class Run(Driven):
    model: FakeModelServer
    folder: Path
    stored: list[dict[str, object]]  # the sessions in the store once VS Code has closed


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
        yield Run(driven.result, driven.output, model, folder, _stored(tmp, folder))


def _stored(tmp: Path, folder: Path) -> list[dict[str, object]]:
    """The project's sessions as ``agentls sessions list`` reads them from the store the chat used."""
    env = {**os.environ, "AGENTLS_DATA_DIR": str(tmp / "agentls-data")}
    env["AGENTLS_CONFIG_DIR"] = str(tmp / "agentls-config")
    command = [ROOT / ".venv" / "bin" / "agentls", "sessions", "-C", str(folder), "list", "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    sessions: list[dict[str, object]] = json.loads(done.stdout)
    return sessions


def test_an_empty_chat_shows_its_mode_before_the_first_prompt(run: Run) -> None:
    r = run.phase("empty")
    assert r["picker"]["shown"] and r["picker"]["messages"] == 0, r
    assert (r["picker"]["value"], r["picker"]["label"]) == ("ask", "Ask"), r
    assert r["picker"]["title"].endswith("New session"), r


def test_an_empty_chat_stores_no_session(run: Run) -> None:
    # After a reload the list is the server's own: a session made by merely opening the chat shows.
    r = run.phase("reload")
    assert r["picker"]["shown"] and r["picker"]["value"] == "ask", r
    assert r["picker"]["sessions"] == 0, r


def test_new_session_is_an_empty_chat_until_used(run: Run) -> None:
    r = run.phase("new-chat")
    assert r["picker"]["messages"] == 0 and r["picker"]["value"] == "plan", r  # the project's last mode
    assert r["picker"]["sessions"] == 1, r
    # Only the session that was prompted is stored: none for the first empty chat, none for "New".
    assert len(run.stored) == 1, run.stored


def test_plan_chosen_before_the_first_prompt_runs_that_turn_in_plan_mode(run: Run) -> None:
    r = run.phase("plan-first")
    assert r["picked"]["value"] == "plan" and r["picked"]["label"] == "Read-only", r
    assert r["after"]["value"] == "plan", r
    assert r["dialogs"] == 0, r  # refused, not asked about
    assert r["picked"]["sessions"] == 1 and r["after"]["sessions"] == 1, r  # the choice made the session
    assert (run.folder / "hello.py").read_text() == "print('hello')\n"
    # The first request already plans (the reminder); the refused edit tells the model why.
    first, second = run.model.requests[0], run.model.requests[1]
    assert "plan" in str(first.messages[-1]).lower()
    result = second.messages[-1]
    assert result["role"] == "tool" and "read-only mode is on" in str(result["content"]), result
