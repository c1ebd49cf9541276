"""The VS Code extension end to end: a real VS Code (code-server) driven by headless Chromium, the real
``agentls serve`` started by the extension, and the scripted fake model.

One code-server session runs the whole scenario (``e2e.mjs``, phase by phase, as a user would go);
each test below checks one phase from what the driver saw and what the fake models received.
Screenshots go to ``tests/vscode/screenshots/`` (gitignored), with the driver's log.
"""

from __future__ import annotations

import base64
import json
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer, RecordedRequest
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
CALC = "def add(a, b):\n    return a - b\n"
NOTES = "# Notes\nThe release is on FRIDAY-42.\n"
CSS = ".box { colr: red; }\n"
FEEDBACK = "Use a comment, not a docstring"
HOSTILE = (
    "Fixed add(): it returned `a - b`, now it returns `a + b`.\n\n"
    '<img src=x onerror="window.__pwned=true">\n\n'
    "<script>window.__pwned = true</script>\n\n"
    "[click me](javascript:window.__pwned=true) or [this](command:workbench.action.closeWindow) "
    "or [that](vscode://file/etc/passwd)\n\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
)
ESSAY = "".join(f"Essay part {i}: the function adds numbers. " for i in range(200))
QUESTIONS = {
    "questions": [
        {
            "question": "Which test runner?",
            "header": "Runner",
            "options": [{"label": "pytest", "description": "the usual"}, {"label": "unittest"}],
        },
        {
            "question": "Which checks?",
            "header": "Checks",
            "options": [{"label": "ruff"}, {"label": "mypy"}, {"label": "coverage"}],
            "multiple": True,
        },
    ]
}
ONE_MORE = {"questions": [{"question": "Really?", "header": "Again", "options": [{"label": "yes"}]}]}


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A small PNG: ``rgb`` with a lighter diagonal band, so a thumbnail is recognisable in a screenshot."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    light, base = bytes(min(255, c + 110) for c in rgb), bytes(rgb)
    band = width // 6
    rows = b"".join(
        b"\0" + b"".join(light if abs(x - y * width // height) < band else base for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def edit(old: str, new: str) -> dict[str, str]:
    return {"filePath": "calc.py", "oldString": old, "newString": new}


def turns() -> list[Turn]:
    """The main model's answers, in the order the phases of e2e.mjs ask for them."""
    return [
        # edit
        Turn.text("Let me read calc.py first.", chunks=4).tool_call("read", {"filePath": "calc.py"}),
        Turn.text("`add` subtracts; fixing it.", chunks=3).tool_call(
            "edit", edit("return a - b", "return a + b")
        ),
        Turn.text(HOSTILE, chunks=12),
        # feedback
        Turn.tool_call("edit", edit("def add(a, b):", 'def add(a, b):\n    """Add a and b."""')),
        Turn.text("Understood: a comment then, next time."),
        # always: the second edit needs no dialog
        Turn.tool_call("edit", edit("def add(a, b):", "def plus(a, b):")),
        Turn.tool_call("edit", edit("return a - b", "return a + b")),
        Turn.text("Renamed add to plus and fixed it."),
        # questions
        Turn.tool_call("question", QUESTIONS),
        Turn.text("Using pytest with the checks you picked."),
        Turn.tool_call("question", ONE_MORE),  # aborted from the palette
        # attach
        Turn.text("I read both: the notes and the two lines."),
        # image
        Turn.text("I see three images: a logo, a diagram and a screenshot."),
        Turn.text("You dropped the notes, the logo and a drawing."),
        # abort: streams a little, then stalls until the agent hangs up (the user presses Escape)
        Turn.text(ESSAY, chunks=400).stall(after=40),
        # restart
        Turn.text("Back after the restart.", chunks=3),
        # fix
        Turn.text("The property is misspelled: colr should be color."),  # an answer, not an edit
    ]


@dataclass
class Run:
    """One run of the scenario: what the driver saw, and what each fake model received."""

    result: dict[str, Any]
    output: str
    main: FakeModelServer
    other: FakeModelServer
    folder: Path
    trace: Path

    def phase(self, name: str) -> dict[str, Any]:
        """What the driver recorded in phase ``name``; fails the test with the driver's log if it failed."""
        return phase_result(self.result, self.output, name)

    def request_with(self, text: str, server: FakeModelServer | None = None) -> RecordedRequest:
        """The first model request whose messages contain ``text``."""
        for request in (server or self.main).requests:
            if text in json.dumps(request.messages):
                return request
        raise AssertionError(f"no model request contains {text!r}")


def run_driver(args: dict[str, object], timeout: float = 300) -> tuple[int, str, dict[str, Any]]:
    done = subprocess.run(
        [tool("node"), str(HERE / "e2e.mjs"), json.dumps(args)],
        env=tools_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    result: dict[str, Any] = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    return done.returncode, done.stdout + done.stderr, result


def keep_screenshots(shots: Path, output: str, result: dict[str, Any]) -> None:
    """This run's screenshots and driver log to ``screenshots/``, a failure's also to ``failures/`` in it.

    The failures folder outlives later runs, under unique names (``failure-<phase>-<n>.png`` and its
    ``.log``), so a flake caught in a loop of runs can still be looked at afterwards.
    """
    target = HERE / "screenshots"
    failures = target / "failures"
    target.mkdir(exist_ok=True)
    for old in target.iterdir():
        # Folders are the other scenarios' screenshots (review/, trust/, …) and the failures: kept,
        # so that after a whole run every scenario's pictures are there to be looked at.
        if old.is_file():
            old.unlink()
    if shots.is_dir():
        shutil.copytree(shots, target, dirs_exist_ok=True)
    (target / "driver.log").write_text(output)
    if result.get("ok"):
        return
    failures.mkdir(exist_ok=True)
    phase = result.get("failed", "driver")
    n = 1 + sum(1 for _ in failures.glob(f"failure-{phase}-*.log"))
    while (failures / f"failure-{phase}-{n}.log").exists():
        n += 1
    for shot in sorted(shots.glob("*failure-*.png")) if shots.is_dir() else []:
        suffix = shot.stem.split("failure-", 1)[1].removeprefix(phase)  # "" or "-before" etc.
        shutil.copy(shot, failures / f"failure-{phase}-{n}{suffix}.png")
    (failures / f"failure-{phase}-{n}.log").write_text(output)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-e2e")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    (folder / "notes.md").write_text(NOTES)
    (folder / "styles.css").write_text(CSS)
    (folder / "logo.png").write_bytes(png(48, 32, (0x1E, 0x88, 0xE5)))
    (folder / "diagram.png").write_bytes(png(40, 40, (0x43, 0xA0, 0x47)))
    paste = tmp / "pasted.png"  # outside the workspace: it reaches the view only by the paste
    paste.write_bytes(png(64, 36, (0xE5, 0x39, 0x35)))
    shots = tmp / "screenshots"
    trace = tmp / "trace.jsonl"
    log = tmp / "server.log"
    with (
        FakeModelServer.threaded() as main,
        FakeModelServer.threaded() as titles,
        FakeModelServer.threaded() as other,
    ):
        main.script(*turns())
        titles.script(*[Turn.text("Fix add in calc.py") for _ in range(5)])
        other.script(Turn.text("Hello from the other model."))
        config = fake_model_config(main, titles)
        config["provider"]["fake"]["models"]["m"]["modalities"] = {"input": ["text", "image"]}
        config["provider"]["other"] = {
            "litellm_provider": "openai",
            "options": {"api_base": other.openai_base, "api_key": "offline"},
            "models": {"n": {"limit": {"context": 100_000, "output": 4_000}}},
        }
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": config,
            "agentls.permission": {"edit": "ask"},
            "agentls.server.args": ["serve", "--log-file", str(log)],
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            code, output, result = run_driver(
                {
                    "url": cs.url,
                    "folder": str(folder),
                    "shots": str(shots),
                    "trace": str(trace),
                    "pasteImage": str(paste),
                }
            )
        if code != 0 and trace.is_file():
            output += "\ntrace:\n" + trace.read_text()[-6000:]
        if code != 0 and log.is_file():
            output += "\nserver log:\n" + log.read_text()[-6000:]
        if code != 0:
            output += f"\nmodel requests: main {len(main.requests)}, other {len(other.requests)}"
            output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
        keep_screenshots(shots, output, result)
        yield Run(result, output, main, other, folder, trace)


def test_edit_with_diff_saved_and_one_undo(run: Run) -> None:
    r = run.phase("edit")
    # The agent read the unsaved buffer: the read tool's result sent to the model holds the user's note.
    tool_results = [m for m in run.main.requests[1].messages if m.get("role") == "tool"]
    assert any("# unsaved note" in str(m.get("content")) for m in tool_results), run.main.requests[1].messages
    assert r["diffShowsProposal"] is True
    # The edit is in the buffer, on top of the user's unsaved note, and saved: buffer = disk, not dirty.
    assert "return a + b" in r["bufferAfterEdit"] and "# unsaved note" in r["bufferAfterEdit"]
    assert r["dirtyAfterEdit"] == []
    assert r["diskAfterEdit"] == "def add(a, b):\n    return a + b\n# unsaved note"
    assert not any("disk" in n.lower() for n in r["notificationsAfterEdit"])
    # One undo reverts exactly the agent's edit.
    assert "return a - b" in r["bufferAfterUndo"] and "# unsaved note" in r["bufferAfterUndo"]
    # The title the agent gave the session shows in the bar as soon as it is set.
    assert "Fix add in calc.py" in r["liveTitle"]


def test_hostile_markdown_is_inert(run: Run) -> None:
    hostile = run.phase("edit")["hostile"]
    assert hostile == {
        "scripts": 0,
        "handlers": 0,
        "images": 0,
        "badLinks": 0,
        "shownAsText": True,
        "pwned": False,
    }, hostile


def test_reject_with_feedback_reaches_the_model(run: Run) -> None:
    r = run.phase("feedback")
    request = run.request_with(FEEDBACK)
    tool_results = [m for m in request.messages if m.get("role") == "tool"]
    assert any(
        f"The user rejected this call and said: {FEEDBACK}" in str(m.get("content")) for m in tool_results
    ), request.messages
    # The rejected edit did not happen.
    assert '"""' not in r["buffer"] and '"""' not in r["disk"]


def test_always_allow_lets_the_next_edit_through_without_a_dialog(run: Run) -> None:
    r = run.phase("always")
    assert r["dialogsShown"] == 1, r
    edits = [c for c in r["editCards"] if c["name"] == "edit"][-2:]
    assert [c["status"] for c in edits] == ["status-completed", "status-completed"], r["editCards"]
    # The edit rejected with feedback in the phase before shows as rejected, not as a failure.
    edit_states = [c["status"] for c in r["editCards"] if c["name"] == "edit"]
    assert edit_states == ["status-completed", "status-rejected", "status-completed", "status-completed"], r
    assert "def plus(a, b):" in r["buffer"] and "return a + b" in r["buffer"]
    # The second edit's result reached the model as a success (the request answered by turn 8).
    last = run.main.requests[7].messages[-1]
    assert last.get("role") == "tool" and "Edited calc.py" in str(last.get("content")), last


def test_questions_answered_in_the_view_and_closed_elsewhere(run: Run) -> None:
    r = run.phase("questions")
    assert [i["type"] for i in r["inputs"]] == ["radio", "radio", "checkbox", "checkbox", "checkbox"]
    # Shift+Enter broke the line in the typed answer; Enter (not a click) answered the dialog.
    assert r["typedValue"] == "pyright\nstrict" and r["openAfterShiftEnter"] is True, r
    request = run.request_with("The user answered")
    answer = next(str(m["content"]) for m in request.messages if "The user answered" in str(m.get("content")))
    assert '"Which test runner?" = "pytest"' in answer, answer
    assert '"Which checks?" = "ruff, mypy, pyright\nstrict"' in answer, answer
    # The second question was closed by the server (the turn aborted from the palette): the view followed.
    assert r["closedMs"] < 5000


def test_at_file_and_selection_attachments_reach_the_model(run: Run) -> None:
    r = run.phase("attach")
    assert r["chips"] == ["calc.py:1-2", "notes.md", "styles.css"], r["chips"]
    # The sent message keeps the selection's lines on its chip (the server stores them for a range only).
    assert r["userChips"].splitlines() == ["calc.py:1-2", "notes.md", "styles.css"], r["userChips"]
    # The chips are the mentions: the typed `@` goes, the text keeps only what the user wrote.
    assert r["promptText"] == "What do and these lines say?", r["promptText"]
    request = run.request_with("FRIDAY-42")
    user = json.dumps([m for m in request.messages if m.get("role") == "user"][-1])
    # Each item reaches the model once: its file part, not also a mention in the text.
    assert user.count("notes.md") == 1 and user.count("styles.css") == 1, user
    assert "FRIDAY-42" in user  # notes.md, read whole
    assert "colr: red" in user  # styles.css, picked in the same quick pick
    assert 'lines=\\"1-2\\"' in user and "def plus(a, b):" in user, user  # the selection, with its range


def test_images_picked_at_mentioned_and_pasted_reach_the_model(run: Run) -> None:
    r = run.phase("image")
    assert [c["label"] for c in r["chips"]] == ["logo.png", "diagram.png", "pasted-1.png"], r["chips"]
    assert r["promptText"] == "What do and these show?", r["promptText"]
    request = run.request_with("and these show?")
    user = [m for m in request.messages if m.get("role") == "user"][-1]
    images = [c["image_url"]["url"] for c in user["content"] if c.get("type") == "image_url"]
    assert len(images) == 3, images
    # The picked files byte for byte; the pasted image as the clipboard gives it back (Chromium
    # encodes it anew): a PNG of the same size.
    for url, name in zip(images[:2], ["logo.png", "diagram.png"], strict=True):
        assert url == f"data:image/png;base64,{base64.b64encode((run.folder / name).read_bytes()).decode()}"
    assert images[2].startswith("data:image/png;base64,"), images[2][:80]
    pasted = base64.b64decode(images[2].split(",", 1)[1])
    assert pasted[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", pasted[16:24]) == (64, 36)
    # The sent message shows the three thumbnails in the transcript.
    assert len(r["sentThumbs"]) == 3 and all(w > 0 for w in r["sentThumbs"]), r["sentThumbs"]


def test_files_dropped_from_vscode_and_the_system_reach_the_model(run: Run) -> None:
    r = run.phase("drop")
    # The view takes the drag (the drop fires) and outlines the prompt box until the drop.
    assert r["explorer"] == {"accepted": True, "highlighted": True, "after": False}, r["explorer"]
    assert r["system"]["accepted"] is True, r["system"]
    assert r["chips"] == ["notes.md", "logo.png", "drawn.png"], r["chips"]
    warning = r["warning"]
    assert "project (a folder" in warning and "elsewhere.txt (outside the workspace)" in warning, warning
    assert warning.startswith("agentls: cannot attach project (a folder"), warning  # its name, not its path
    request = run.request_with("What did I drop?")
    user = [m for m in request.messages if m.get("role") == "user"][-1]
    assert "FRIDAY-42" in json.dumps(user)  # notes.md, read by the server from its URI
    images = [c["image_url"]["url"] for c in user["content"] if c.get("type") == "image_url"]
    # logo.png as read by the extension; drawn.png is diagram.png's bytes, dropped as a system file.
    sent = [base64.b64encode((run.folder / f).read_bytes()).decode() for f in ("logo.png", "diagram.png")]
    assert images == [f"data:image/png;base64,{data}" for data in sent], [i[:60] for i in images]


def test_abort_mid_stream(run: Run) -> None:
    r = run.phase("abort")
    assert r["abortMs"] < 1000, r["abortMs"]


def test_reload_window_shows_the_session(run: Run) -> None:
    r = run.phase("reload")
    assert "Fix add in calc.py" in r["sessions"]


def test_killed_server_is_restarted_once_with_a_notice(run: Run) -> None:
    r = run.phase("restart")
    assert r["restartedPid"] != r["killedPid"]
    assert r["notices"] == 1
    events = [json.loads(line)["event"] for line in run.trace.read_text().splitlines()]
    assert "serverInitialized" in events and "editApplied" in events and "viewReady" in events


def test_rename_fork_delete_sessions(run: Run) -> None:
    r = run.phase("sessions")
    assert "Calc work" in r["afterRename"] and "Fix add in calc.py" not in r["afterRename"]
    assert "Calc work (fork)" in r["forkTitle"]
    assert sorted(r["afterFork"]) == ["Calc work", "Calc work (fork)"], r["afterFork"]
    assert r["forkTranscript"] > 0
    # The chat left empty stores no session of its own until it is used.
    assert r["afterDelete"] == ["Calc work"], r["afterDelete"]
    assert "New session" in r["titleAfterDelete"]


def test_fix_sends_another_servers_diagnostic(run: Run) -> None:
    r = run.phase("fix")
    assert "Unknown property" in r["userText"] and "[css]" in r["userText"], r["userText"]
    request = run.request_with("Unknown property")
    user = json.dumps([m for m in request.messages if m.get("role") == "user"][-1])
    assert "Unknown property: 'colr'" in user and "styles.css" in user, user


def test_settings_change_reaches_the_running_server(run: Run) -> None:
    r = run.phase("settings")
    assert r["picker"] == "other/n"
    assert r["serverStarts"] == 0  # applied by the running server, not by a restart
    assert len(run.other.requests) == 1
    assert "Which model are you?" in json.dumps(run.other.requests[0].messages)
    assert not any("Which model are you?" in json.dumps(q.messages) for q in run.main.requests)
