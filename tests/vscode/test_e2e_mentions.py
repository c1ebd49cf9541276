"""``@session`` and ``@terminal`` through the terminal's selection, in a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model: an earlier session's
answer reaches the model with a new session's prompt; a terminal's selected text (read through the
clipboard, which is put back as it was) reaches it as well. Screenshots go to
``tests/vscode/screenshots/mentions``.
"""

from __future__ import annotations

import json
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


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    model: FakeModelServer

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)

    def user_text(self, request: int) -> str:
        """The last user message of the model's request number ``request``, as JSON text."""
        users = [m for m in self.model.requests[request].messages if m.get("role") == "user"]
        return json.dumps(users[-1].get("content")) if users else ""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-mentions")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    shots = tmp / "screenshots"
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.text("The code word is EARLIER-ANSWER-4242."),
            Turn.text("SESSION-SEEN."),
            Turn.text("TERMINAL-SEEN."),
        )
        titles.script(*[Turn.text("Earlier talk") for _ in range(1)], *[Turn.text("Later") for _ in range(3)])
        settings = {"agentls.server.path": str(AGENTLS), "agentls.config": fake_model_config(model, titles)}
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            args = {"url": cs.url, "folder": str(folder), "shots": str(shots)}
            output, result = drive(HERE / "e2e_mentions.mjs", args, {})
            if not result.get("ok"):
                output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
        target = HERE / "screenshots" / "mentions"
        shutil.rmtree(target, ignore_errors=True)
        if shots.is_dir():
            shutil.copytree(shots, target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "driver.log").write_text(output)
        yield Run(result, output, model)


def test_an_earlier_sessions_answer_reaches_the_model(run: Run) -> None:
    r = run.phase("session")
    assert any(c.startswith("@session") and c.endswith(" tok") for c in r["chips"]), r
    assert "EARLIER-ANSWER-4242" in run.user_text(1), run.user_text(1)


def test_the_terminals_selection_reaches_the_model(run: Run) -> None:
    r = run.phase("terminal-selection")
    assert any(c.startswith("@terminal") and c.endswith(" tok") for c in r["chips"]), r
    sent = run.user_text(2)
    # The whole selection (both commands), not only the last command's output.
    assert "first-1111" in sent and "last-2222" in sent, sent


def test_the_users_clipboard_is_put_back(run: Run) -> None:
    r = run.phase("terminal-selection")
    assert r["clipboard"] == "the user's own clipboard 5150", r
