"""Reading an answer in the VS Code chat view, end to end: a real VS Code (code-server) in headless
Chromium, the real ``agentls serve`` started by the extension, and the scripted fake model.

One code-server session runs ``reading.mjs`` phase by phase; each test checks one phase. The pixel
checks compare screenshots of the view at device scale 2 (``pixels.mjs``); the zoomed screenshots go
to ``tests/vscode/screenshots/`` (gitignored) for a reader to look at.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result
from tests.vscode.test_e2e import AGENTLS, keep_screenshots

HERE = Path(__file__).parent
CALC = "def add(a, b):\n    return a - b\n"
FEEDBACK = "Use a comment, not a docstring"
CODE = "```python\ndef test_add_neg():\n    x_y = f_g(1)\n# gjpqy|`q` y_v\n    last_line_v\n```\n"
INLINE = "`a_very_long_function_name_that_wraps_in_the_side_bar_with_underscores_in_each_line_of_it`"
ANSWER = f"Here are the tests:\n\n{CODE}\nInline: {INLINE} and more text after it.\n\nResults:\n\n"
TABLE_HEAD = "| name_x | value |\n"
TABLE_REST = "| --- | --- |\n| a_b | 1 |\n| c_d | gjpq |\n\nDone."
ESSAY = "".join(f"Essay part {i}: the function adds numbers. " for i in range(200))
LONG = "".join(f"Long part {i}: still going. " for i in range(300))
FIRST = "".join(f"First half {i}: a paragraph of the answer.\n\n" for i in range(40))
SECOND = "".join(f"Second half {i}: more of the answer.\n\n" for i in range(40))
QUESTION = {
    "questions": [
        {
            "question": "Which runner?",
            "header": "Runner",
            "options": [{"label": "pytest"}, {"label": "unittest"}],
        }
    ]
}


def edit(old: str, new: str) -> dict[str, str]:
    return {"filePath": "calc.py", "oldString": old, "newString": new}


def turns() -> list[Turn]:
    """The model's answers, in the order the phases of reading.mjs ask for them."""
    return [
        # answer: the table's header row, then a pause before its delimiter row (a real model pauses too)
        Turn.text(ANSWER).text(TABLE_HEAD).text(TABLE_REST).stall(after=3, until=1.0),
        # focus: an edit with its dialog, then an answer; then an essay the user stops
        Turn.tool_call("edit", edit("return a - b", "return a + b")),
        Turn.text("Fixed it."),
        Turn.text(ESSAY, chunks=400).stall(after=40),
        # cards: a question answered, an edit rejected with feedback
        Turn.tool_call("question", QUESTION),
        Turn.text("Using pytest."),
        Turn.tool_call("edit", edit("def add(a, b):", 'def add(a, b):\n    """Add."""')),
        Turn.text("A comment, then."),
        # errors: a failed turn, the next one, then one cut by the server's death
        Turn.fault(
            400,
            body={
                "error": {"message": "the model cannot take this request", "type": "invalid_request_error"}
            },
        ),
        Turn.text("Worked this time."),
        Turn.text(LONG, chunks=300).stall(after=20),
        # scroll: a first half at once, the second after a pause
        Turn.text(FIRST).text(SECOND, chunks=20).stall(after=2, until=0.8),
    ]


@dataclass
class Run:
    result: dict[str, Any]
    output: str

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-reading")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    shots = tmp / "screenshots"
    trace = tmp / "trace.jsonl"
    log = tmp / "server.log"
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(*turns())
        titles.script(*[Turn.text("Reading answers") for _ in range(5)])
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": fake_model_config(main, titles),
            # Explicit, whatever the server's defaults: edits ask (the dialogs are part of the scenario).
            "agentls.permission": {"edit": "ask"},
            "agentls.server.args": ["serve", "--log-file", str(log)],
            "workbench.colorTheme": "Dark Modern",
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        root = tmp / "vscode"
        with code_server(root, package, settings, env) as cs:
            args = {
                "url": cs.url,
                "folder": str(folder),
                "shots": str(shots),
                "trace": str(trace),
                "feedback": FEEDBACK,
                "keepGoing": os.environ.get("AGENTLS_E2E_KEEP_GOING") == "1",
            }
            done = subprocess.run(
                [tool("node"), str(HERE / "reading.mjs"), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=400,
            )
        output = done.stdout + done.stderr
        result: dict[str, Any] = {}
        for line in done.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT ") :])
        if done.returncode != 0 and log.is_file():
            output += "\nserver log:\n" + log.read_text()[-6000:]
        keep_screenshots(shots, output, result)
        yield Run(result, output)


def hidden(glyphs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The glyphs no pixel of which is on screen."""
    return [g for g in glyphs if g["pixels"] == 0]


@pytest.mark.parametrize("theme", ["light", "dark", "hc"])
def test_underscores_and_descenders_are_on_screen(run: Run, theme: str) -> None:
    seen = run.phase("themes")[theme]
    code = seen["codeBlock"]["glyphs"]
    # Every line of the block has underscores; the third a backtick, a bar and descenders too.
    assert {g["ch"] for g in code} >= {"_", "|", "`", "g", "j", "p", "q", "y"}, code
    assert len({g["line"] for g in code if g["ch"] == "_"}) == 4, code  # every line of the block
    assert hidden(code) == [], f"painted over in the code block ({theme}): {hidden(code)}"
    inline = seen["inlineCode"]["glyphs"]
    lines = seen["inlineCode"]["lines"]
    assert lines >= 2, "the inline code should wrap in the side bar"
    # Underscores on every line but perhaps the last (where the wrap leaves the name's last letters).
    assert len({g["line"] for g in inline if g["ch"] == "_"}) >= lines - 1, inline
    assert hidden(inline) == [], f"painted over in wrapped inline code ({theme}): {hidden(inline)}"
    table = seen["table"]["glyphs"]
    assert hidden(table) == [], f"painted over in the table ({theme}): {hidden(table)}"


@pytest.mark.parametrize("theme", ["light", "dark", "hc"])
def test_secondary_buttons_stand_out(run: Run, theme: str) -> None:
    b = run.phase("themes")[theme]["secondary"]
    # A 1px border that differs from the side bar by more than a faint line (Dark Modern's own
    # button border, 10% white over #181818, is 69 apart).
    assert b["border"].startswith("1px solid"), b
    assert b["contrast"] >= 90, b


def test_table_has_borders_and_its_raw_row_never_flashes(run: Run) -> None:
    r = run.phase("answer")
    assert r["rawRows"] == [], r["rawRows"]
    assert r["table"]["headers"] == ["name_x", "value"], r["table"]
    assert r["table"]["cells"] == ["a_b", "1", "c_d", "gjpq"], r["table"]
    border = r["table"]["border"]
    assert border["width"] == "1px" and border["style"] == "solid", border
    assert border["color"] not in ("rgba(0, 0, 0, 0)", "transparent"), border


def test_copy_and_insert_at_cursor_from_the_keyboard(run: Run) -> None:
    r = run.phase("copy-insert")
    assert {"tag": "BUTTON", "name": "Copy python code"} in r["buttons"], r["buttons"]
    assert {"tag": "BUTTON", "name": "Insert python code at the cursor"} in r["buttons"], r["buttons"]
    assert r["copyFocusRing"]["focusVisible"] is True and r["copyFocusRing"]["outline"] == "1px solid", r
    assert r["clipboard"] == CODE.split("\n", 1)[1].rsplit("```", 1)[0], r["clipboard"]
    # The selected first line was replaced by the block; the rest of the file is as it was.
    assert r["afterInsert"].startswith("def test_add_neg():"), r["afterInsert"]
    assert r["afterInsert"].rstrip().endswith("return a - b"), r["afterInsert"]
    assert [e["applied"] for e in r["inserted"]] == [True], r["inserted"]
    assert r["afterUndo"].strip() == CALC.strip(), r["afterUndo"]  # one undo step


def test_live_log_glyph_text_and_dialog_focus(run: Run) -> None:
    r = run.phase("focus")
    assert r["log"] == {"role": "log", "live": "polite", "relevant": "additions"}, r["log"]
    assert r["sessionButton"] == {"name": "Session: Reading answers. Sessions menu", "expanded": "false"}, r
    assert "dialog" in r["dialogFocus"] and "permission" in r["dialogFocus"], r["dialogFocus"]
    assert r["dialogRole"] == {"role": "alertdialog", "name": "Allow edit?"}, r["dialogRole"]
    # Enter pressed while the dialog had the focus clicked nothing and left it open.
    assert r["clicksAfterEnter"] == [] and r["openAfterEnter"] is True, r
    assert "[action=once]" in r["allowFocused"], r["allowFocused"]
    assert r["allowRing"] == "solid:true", r["allowRing"]
    assert "#prompt-input" in r["focusAfterAnswer"], r["focusAfterAnswer"]
    assert r["glyphs"] and all(g["hidden"] == "true" and g["text"] for g in r["glyphs"]), r["glyphs"]
    assert "done: " in [g["text"] for g in r["glyphs"]], r["glyphs"]
    assert set(r["busyAfter"]) == {"false"}, r["busyAfter"]


def test_focus_returns_to_the_prompt_after_stop(run: Run) -> None:
    r = run.phase("focus")
    assert "#prompt-input" in r["focusAfterStop"], r["focusAfterStop"]
    assert r["stoppedText"][-1] == "Stopped.", r["stoppedText"]


def test_cards_show_what_the_user_answered_and_said(run: Run) -> None:
    r = run.phase("cards")
    assert any("You answered:" in t and "Which runner? → pytest" in t for t in r["questionCard"]), r
    assert any(f"You rejected it and said: {FEEDBACK}" in t for t in r["rejectionCard"]), r


def test_a_failed_turn_stays_an_error_and_a_crash_is_not_a_stop(run: Run) -> None:
    r = run.phase("errors")
    assert r["failed"] and all(t.startswith("Error: ") for t in r["failed"]), r["failed"]
    assert r["afterNext"] == r["failed"], r  # still there after the next turn cleared the notice
    assert r["notice"] == "", r["notice"]
    crashed = [f for f in r["crashed"] if "interrupted" in f]
    assert crashed and all(f.startswith("msg-footer error") for f in crashed), r["crashed"]
    assert not any("Stopped." in f for f in crashed), r["crashed"]
    assert r["liveAfterReload"] == "polite", r


def test_scrolling_up_while_an_answer_streams_is_kept(run: Run) -> None:
    r = run.phase("scroll")
    assert r["wheelMs"] < 1500 and r["secondHalfAtWheel"] is False, r
    assert r["fromBottom"] > 200, r  # the new half came in and the view stayed where the user was
    assert r["jumpShown"] is True, r
    assert not r["jumpBackground"].endswith(", 0)"), r  # opaque: it floats over the text
    assert r["afterJump"] < 24 and r["jumpHidden"] is True, r
