"""Next edits in a real VS Code (code-server + Chromium), the extension, the real ``agentls serve``
and the scripted fake models. With ``agentls.nextEdits`` on: after the agent gives ``send`` a new
parameter, the ghost text at the next call proposes the new argument, Tab accepts it, and typing at
the other call dismisses its suggestion; after the agent renames ``send``'s parameter, the next call
shows the rename as the extension's inline edit (ghost text cannot remove ``msg``), Tab accepts it
in one undo step and the edit joins the agent's review (undone from there), typing dismisses it.
Off: the same rename asks the small model nothing.
Screenshots go to ``tests/vscode/screenshots/next_edits*``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


RENAME_UTIL = "def send(msg, loud=False):\n    return msg.upper() if loud else msg\n"
RENAMED = "def send(text, loud=False):\n    return text.upper() if loud else text\n"
RENAME_MAIN = 'from util import send\n\nsend(msg="hi")\nsend(msg="bye", loud=True)\n'


def renamed(tmp: Path, on: bool) -> tuple[Driven, list[str]]:
    """The agent renames ``msg`` in util.py with main.py open; the driver's result and the first user
    text of every request the small model received."""
    folder = tmp / "project"
    folder.mkdir()
    (folder / "util.py").write_text(RENAME_UTIL)
    (folder / "main.py").write_text(RENAME_MAIN)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as small:
        edit = {"filePath": str(folder / "util.py"), "oldString": RENAME_UTIL, "newString": RENAMED}
        model.script(Turn.tool_call("edit", edit), Turn.text("Renamed."))
        sites = (Turn.text('send(text="hi")'), Turn.text('send(text="bye", loud=True)'))
        small.script(Turn.text("Rename"), *sites)  # the title first, then the sites nearest first
        settings = {"agentls.permission": {"edit": "allow"}, "agentls.nextEdits": on}
        name = "next_edits_rename" if on else "next_edits_off"
        driven = drive(
            "e2e_next_rename.mjs",
            name,
            tmp,
            folder,
            fake_model_config(model, small),
            settings=settings,
            args={"off": not on},
        )
        return driven, [r.first_user_text for r in small.requests]


@pytest.fixture(scope="module")
def rename(tmp_path_factory: pytest.TempPathFactory) -> tuple[Driven, list[str]]:
    return renamed(tmp_path_factory.mktemp("vscode-next-rename"), True)


def test_a_rename_at_the_next_call_shows_as_an_inline_edit_and_tab_accepts_it(
    rename: tuple[Driven, list[str]],
) -> None:
    run, asked = rename
    r = run.phase("suggest")
    assert r["shown"] == {"struck": ["msg"], "added": ["text"]}, r
    assert r["ghost"] == [], r  # VS Code's ghost text shows nothing of it
    assert r["accepted"].splitlines()[2] == 'send(text="hi")', r["accepted"]
    assert r["afterAccept"] == {"struck": [], "added": []}, r
    assert r["undone"].splitlines()[2] == 'send(msg="hi")', r["undone"]  # one undo step
    assert r["redone"].splitlines()[2] == 'send(text="hi")', r["redone"]
    # The small model was asked for the two sites, nearest first (later phases may ask again for a
    # site whose line is back as it was: the review undo below).
    sites = [
        text.split("Line to rewrite:\n")[1].split("\n")[0] for text in asked if text.startswith("Pattern:")
    ]
    assert sites[:2] == ['send(msg="hi")', 'send(msg="bye", loud=True)'], asked


def test_the_accepted_edit_joins_the_agents_review_and_undoes_as_its_hunks(
    rename: tuple[Driven, list[str]],
) -> None:
    r = rename[0].phase("review")
    assert r["review"] == "Review 2 changes" and r["after"] == "Review 1 change", r
    assert any("Undo" in lens for lens in r["lenses"]) and r["lensesAfter"] == [], r
    assert r["undone"].splitlines()[2] == 'send(msg="hi")', r["undone"]


def test_escape_and_typing_dismiss_the_inline_edit(rename: tuple[Driven, list[str]]) -> None:
    r = rename[0].phase("dismiss")
    assert r["escaped"] == {"struck": [], "added": []}, r  # Escape dismissed it first
    assert r["before"] == {"struck": ["msg"], "added": ["text"]}, r
    assert r["after"] == {"struck": [], "added": []}, r
    assert r["text"].splitlines()[3] == 'send(zmsg="bye", loud=True)', r["text"]


def test_off_no_request_reaches_the_small_model(tmp_path: Path) -> None:
    run, asked = renamed(tmp_path, False)
    r = run.phase("off")
    assert r["shown"] == {"struck": [], "added": []}, r
    assert r["text"].splitlines()[2] == 'send(mzsg="hi")', r["text"]
    assert not any("pattern" in row.lower() for row in r["actions"]["rows"]), r
    assert not any(text.startswith("Pattern:") for text in asked), asked
