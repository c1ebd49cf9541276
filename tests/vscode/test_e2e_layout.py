"""The chat keeps its height while the agent edits, in a real VS Code (code-server + Chromium) with the
extension, the real ``agentls serve`` and the scripted fake model: with seven context chips above the
prompt and a turn that leaves three pending hunks, the transcript keeps most of the side bar (the
Changes list lives in the panel, not beside the chat), nothing in the chat jumps during the turn
(the browser's own LayoutShift entries), and the status line's "Review 3 changes" takes the user to
the first hunk in the editor; a second turn waiting on a command's permission shows the status line's
buttons whole (it wraps in the narrow side bar). Screenshots go to ``tests/vscode/screenshots/layout``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

CALC = "".join(f"{name} = {value}\n" for value, name in enumerate("abcdefghij", start=1))
FILES = [f"part{n}.py" for n in range(1, 7)]


@dataclass
class Run(Driven):
    pass


def _edit(old: str, new: str) -> Turn:
    return Turn.tool_call("edit", {"filePath": "calc.py", "oldString": old, "newString": new})


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-layout")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    for name in FILES:
        (folder / name).write_text(f"# {name}\nvalue = {len(name)}\n")
    answer = "Changed b, d and h.\n\n" + "\n".join(f"- line {n} of the summary" for n in range(1, 25))
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        edits = [_edit("b = 2\n", "b = 20\n"), _edit("d = 4\n", "d = 40\n"), _edit("h = 8\n", "h = 80\n")]
        run_tests = Turn.tool_call("bash", {"command": "make test", "description": "Run the tests"})
        model.script(*edits, Turn.text(answer, chunks=12), run_tests, Turn.text("The tests ran."))
        titles.script(*[Turn.text("Three edits") for _ in range(3)])
        config = fake_model_config(model, titles)
        # Edits land without a dialog (as in Auto-accept), so all three wait for review.
        settings = {"agentls.permission": {"edit": "allow"}}
        args = {"files": FILES}
        driven = drive("e2e_layout.mjs", "layout", tmp, folder, config, settings=settings, args=args)
        yield Run(driven.result, driven.output)


def test_seven_chips_and_three_pending_hunks_leave_the_transcript_most_of_the_side_bar(run: Run) -> None:
    r = run.phase("after-turn")
    assert len(r["chipsBefore"]) == 7, r
    assert r["pendingLabel"] == "Review 3 changes", r
    assert "Changes" not in r["sidebarPanes"], r  # the Changes list is not in the side bar
    assert r["transcript"] >= 0.6 * r["sidebar"], r
    print(f"transcript {r['transcript']:.0f} px of a {r['sidebar']:.0f} px side bar")


def test_nothing_in_the_chat_jumps_during_a_turn_with_edits(run: Run) -> None:
    r = run.phase("after-turn")
    # Cumulative layout shift as the browser scores it (shifts right after the user's own input,
    # such as the sent prompt's chips going away, are the user's and do not count).
    print(f"layout shift during the turn: {r['shift']:.4f} (all entries: {r['shiftAll']:.4f})", r["shifts"])
    assert r["shift"] <= 0.1, r


def test_review_changes_in_the_status_line_opens_the_first_hunk_in_the_editor(run: Run) -> None:
    r = run.phase("review-from-chat")
    assert "calc.py" in r["activeTab"], r
    assert sum(1 for t in r["lenses"] if t.endswith("Keep")) == 3, r
    assert "Ln 2," in r["position"], r  # b = 20, the first hunk


def test_the_busy_status_line_wraps_rather_than_cutting_off_review(run: Run) -> None:
    r = run.phase("busy-row")["row"]
    labels = [b["label"] for b in r["buttons"]]
    assert {"Queue", "Steer", "Stop and send", "Review 3 changes"} <= set(labels), r
    # Every button whole and inside the status line (it grew a second row), and the text still read.
    assert all(b["inside"] and not b["clipped"] for b in r["buttons"]), r
    assert r["text"].startswith("Working") and r["textWidth"] > 30, r
