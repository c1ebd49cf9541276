"""Next edits in a real VS Code (code-server + Chromium), the extension, the real ``agentls serve``
with ``agentls.nextEdits`` on, and the scripted fake models: after the agent gives ``send`` a new
parameter, the ghost text at the next call proposes the new argument, Tab accepts it, and typing at
the other call dismisses its suggestion. Screenshots go to ``tests/vscode/screenshots/next_edits``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

UTIL = "def send(msg):\n    return msg\n"
CHANGED = "def send(msg, timeout):\n    return msg\n"
MAIN = 'from util import send\n\nsend("hi")\nsend("bye")\n'


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driven]:
    tmp = tmp_path_factory.mktemp("vscode-next-edits")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "util.py").write_text(UTIL)
    (folder / "main.py").write_text(MAIN)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as small:
        edit = {"filePath": str(folder / "util.py"), "oldString": UTIL, "newString": CHANGED}
        model.script(Turn.tool_call("edit", edit), Turn.text("Changed."))
        # The title first (it is asked beside the turn), then the two call sites, nearest first.
        small.script(
            Turn.text("Timeout"), Turn.text('send("hi", timeout=5)'), Turn.text('send("bye", timeout=5)')
        )
        log = tmp / "server.log"
        settings = {
            "agentls.permission": {"edit": "allow"},
            "agentls.nextEdits": True,
            "agentls.server.args": ["serve", "--log-level", "INFO", "--log-file", str(log)],
        }
        yield drive(
            "e2e_next_edits.mjs",
            "next_edits",
            tmp,
            folder,
            fake_model_config(model, small),
            settings=settings,
        )


def test_the_next_call_shows_the_new_argument_and_tab_accepts_it(run: Driven) -> None:
    r = run.phase("suggest")
    assert "".join(r["ghost"]) == ", timeout=5", r  # (in spans, by syntax colour)
    assert 'send("hi", timeout=5)' in r["accepted"], r["accepted"]


def test_typing_dismisses_the_suggestion(run: Driven) -> None:
    r = run.phase("dismiss")
    assert "".join(r["before"]) == ", timeout=5" and r["after"] == [], r
    assert 'send("bye"!)' in r["text"], r["text"]
