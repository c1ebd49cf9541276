"""``@session`` and ``@terminal`` through the terminal's selection, in a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model: an earlier session's
answer reaches the model with a new session's prompt; a terminal's selected text (read through the
clipboard, which is put back as it was) reaches it as well. Screenshots go to
``tests/vscode/screenshots/mentions``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive


@dataclass
class Run(Driven):
    model: FakeModelServer

    def user_text(self, request: int) -> str:
        """The last user message of the model's request number ``request``, as JSON text."""
        users = [m for m in self.model.requests[request].messages if m.get("role") == "user"]
        return json.dumps(users[-1].get("content")) if users else ""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-mentions")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.text("The code word is EARLIER-ANSWER-4242."),
            Turn.text("SESSION-SEEN."),
            Turn.text("TERMINAL-SEEN."),
        )
        titles.script(*[Turn.text("Earlier talk") for _ in range(1)], *[Turn.text("Later") for _ in range(3)])
        driven = drive("e2e_mentions.mjs", "mentions", tmp, folder, fake_model_config(model, titles))
        yield Run(driven.result, driven.output, model)


def test_an_earlier_sessions_answer_reaches_the_model(run: Run) -> None:
    r = run.phase("session")
    assert any(c.startswith("@session") and c.endswith(" tok") for c in r["chips"]), r
    assert "EARLIER-ANSWER-4242" in run.user_text(1), run.user_text(1)


def test_the_terminals_selection_reaches_the_model(run: Run) -> None:
    r = run.phase("terminal-selection")
    assert r["keyToChat"], r  # Ctrl+Alt+A from the terminal reached the chat, not the shell
    assert any(c.startswith("@terminal") and c.endswith(" tok") for c in r["chips"]), r
    sent = run.user_text(2)
    # The whole selection (both commands), not only the last command's output.
    assert "first-1111" in sent and "last-2222" in sent, sent


def test_the_users_clipboard_is_put_back(run: Run) -> None:
    r = run.phase("terminal-selection")
    assert r["clipboard"] == "the user's own clipboard 5150", r
