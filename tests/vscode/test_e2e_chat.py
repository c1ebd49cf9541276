"""Talking to the agent while it works, in a real VS Code (code-server + Chromium) with the extension, the
real ``agentls serve`` and the scripted fake model (``e2e_chat.mjs``): queue, edit, steer and remove
during a long streamed answer; a message queued behind a rejected permission. Each queued message must
get its own answer, in order. Screenshots go to ``tests/vscode/screenshots/chat``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer, RecordedRequest
from demo.fake_script import Turn
from tests.tools import ROOT
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import drive, model_server, phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
ESSAY = "Rivers carve valleys over long ages. " * 60
STORY = "Once upon a time a river met the sea. " * 20
AUDIT_COMMAND = """---
description: Review a file for bugs
argument-hint: <file>
---
Review $1 carefully and list the bugs.
"""


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    model: FakeModelServer
    folder: Path

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)

    def last_user_text(self, request: RecordedRequest) -> str:
        users = [m for m in request.messages if m.get("role") == "user"]
        return json.dumps(users[-1].get("content")) if users else ""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-chat")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    commands = folder / ".agentls" / "command"
    commands.mkdir(parents=True)
    (commands / "audit.md").write_text(AUDIT_COMMAND)
    (commands / "broken.md").write_text("---\ndescription: half\nsubtask: maybe\n---\nBroken $1\n")
    shots = tmp / "screenshots"
    release, story, story_2 = asyncio.Event(), asyncio.Event(), asyncio.Event()
    with model_server() as (model, loop), FakeModelServer.threaded() as titles:
        model.script(
            # queue: a long answer that stalls until the driver has queued, edited, steered and removed
            Turn.text(ESSAY, chunks=300).stall(after=20, until=release),
            Turn.text("ANSWER-STEER: deltas noted."),
            Turn.text("ANSWER-QUEUED-ONE: the edited one."),
            # rejected: a write the user rejects, with a message queued behind its dialog
            Turn.tool_call("write", {"filePath": "notes.txt", "content": "hello\n"}),
            Turn.text("ANSWER-AFTER-REJECT: here it is."),
            # slash: the user's /review command
            Turn.text("ANSWER-REVIEW: no bugs in calc.py."),
            # notify: a story that ends while the view is hidden, then the queued write's dialog
            Turn.text(STORY, chunks=100).stall(after=5, until=story),
            Turn.tool_call("write", {"filePath": "todo.txt", "content": "- tests\n"}),
            Turn.text("ANSWER-WROTE: todo.txt is written."),
            # notify-off: with agentls.notifications off, a turn ends while the view is hidden
            Turn.text("Twice upon a time. " * 40, chunks=40).stall(after=5, until=story_2),
            # controls: a write in Auto-accept mode (no dialog), then a prompt at effort "low"
            Turn.tool_call("write", {"filePath": "auto.txt", "content": "written without a dialog\n"}),
            Turn.text("ANSWER-AUTO: auto.txt is written."),
            Turn.text("ANSWER-EFFORT: a little."),
            # interrupt: a count that streams until it is stopped, then the message sent with Stop and send
            Turn.text("One two three four. " * 100, chunks=200).stall(after=10),
            Turn.text("ANSWER-INTERRUPT: hi."),
        )
        titles.script(*[Turn.text("Chat") for _ in range(10)])
        config = fake_model_config(model, titles)
        # An OpenAI-style reasoning switch for the fake model, so it has effort levels to pick from.
        config["provider"]["fake"]["models"]["m"]["options"] = {"agentls_thinking": "openai"}
        settings = {"agentls.server.path": str(AGENTLS), "agentls.config": config}
        trace = tmp / "trace.jsonl"
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            args = {"url": cs.url, "folder": str(folder), "shots": str(shots), "trace": str(trace)}
            signals = {
                "release-essay": lambda: loop.call_soon_threadsafe(release.set),
                "release-story": lambda: loop.call_soon_threadsafe(story.set),
                "release-story-2": lambda: loop.call_soon_threadsafe(story_2.set),
            }
            output, result = drive(HERE / "e2e_chat.mjs", args, signals)
            if not result.get("ok"):
                output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
                if trace.is_file():
                    output += "\nextension trace:\n" + trace.read_text()[-20000:]
        target = HERE / "screenshots" / "chat"
        shutil.rmtree(target, ignore_errors=True)
        if shots.is_dir():
            shutil.copytree(shots, target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "driver.log").write_text(output)
        yield Run(result, output, model, folder)


def answers_in_order(transcript: list[list[str]], pairs: list[tuple[str, str]]) -> None:
    """Each (user text, answer text) pair appears in order, the answer after its own message."""
    at = 0
    for user, answer in pairs:
        u = next(
            (
                i
                for i in range(at, len(transcript))
                if transcript[i][0] == "user" and user in transcript[i][1]
            ),
            None,
        )
        assert u is not None, f"no user message {user!r} after row {at}: {transcript}"
        a = next(
            (
                i
                for i in range(u + 1, len(transcript))
                if transcript[i][0] == "assistant" and answer in transcript[i][1]
            ),
            None,
        )
        assert a is not None, f"no answer {answer!r} after {user!r}: {transcript}"
        at = a + 1


def test_the_prompt_box_stays_usable_while_a_turn_runs(run: Run) -> None:
    r = run.phase("queue")
    assert r["busyButtons"] == ["Queue", "Steer", "Stop and send"], r["busyButtons"]
    assert "Enter" in r["placeholder"] and "Ctrl+Enter" in r["placeholder"], r["placeholder"]
    assert r["focusAfterQueue"] == "prompt-input" and r["promptAfterQueue"] == ""


def test_queued_messages_are_shown_edited_and_removed_with_the_focus_kept(run: Run) -> None:
    r = run.phase("queue")
    assert [q["text"] for q in r["queue"]] == ["first queued, edited"], r["queue"]
    assert r["queue"][0]["label"] == "Queued message 1: first queued, edited"
    assert r["removeLabel"] == "Remove queued message 1"
    assert r["focusInEditor"] == "queued-input"
    assert r["focusAfterEdit"] == "prompt-input" and r["focusAfterRemove"] == "prompt-input"


def test_steered_and_queued_messages_each_get_their_own_answer_in_order(run: Run) -> None:
    r = run.phase("queue")
    answers_in_order(
        r["transcript"],
        [
            ("rivers", "Rivers carve"),
            ("steer: mention deltas", "ANSWER-STEER"),
            ("first queued, edited", "ANSWER-QUEUED-ONE"),
        ],
    )
    assert not any("second queued" in text for _, text in r["transcript"]), r["transcript"]
    # The model saw the steer, then the edited queued message as its own turn; never the removed one.
    asked = [run.last_user_text(q) for q in run.model.requests[:3]]
    assert (
        "rivers" in asked[0] and "steer: mention deltas" in asked[1] and "first queued, edited" in asked[2]
    ), asked
    assert all("second queued" not in json.dumps(q.messages) for q in run.model.requests)


def test_a_message_queued_behind_a_rejected_permission_gets_its_own_answer(run: Run) -> None:
    r = run.phase("rejected")
    answers_in_order(r["transcript"], [("after the rejection", "ANSWER-AFTER-REJECT")])
    assert r["queue"] == []
    assert "after the rejection" in run.last_user_text(run.model.requests[4])


def test_the_slash_menu_lists_built_ins_and_the_users_commands_with_hints(run: Run) -> None:
    r = run.phase("slash")
    opened = r["opened"]
    assert {
        "compact",
        "undo",
        "redo",
        "init",
        "rewind",
        "new",
        "model",
        "agent",
        "mode",
        "effort",
        "export",
    } <= set(opened["items"]), opened["items"]
    assert opened["items"][0] == "audit", opened["items"]  # the project's own before the built-ins
    audit = opened["texts"][0]
    assert "/audit" in audit and "<file>" in audit and "Review a file for bugs" in audit, audit
    assert opened["expanded"] == "true" and opened["descendant"] == opened["activeId"] == "slash-0"
    # The broken command file is named with its line; the others loaded.
    assert opened["errors"] == ["Not loaded: .agentls/command/broken.md:3: 'subtask' must be true or false"]


def test_the_slash_menu_filters_and_takes_arrows_enter_tab_escape_and_the_mouse(run: Run) -> None:
    r = run.phase("slash")
    # Names that start with "a" first (the project's, then built-ins), then those that only contain it.
    assert r["filtered"]["items"][:2] == ["audit", "agent"], r["filtered"]
    assert r["filtered"]["active"] == "audit"
    assert r["afterDown"]["active"] == "agent" and r["afterDown"]["activeSelected"] == "true"
    assert r["afterDown"]["descendant"] == r["afterDown"]["activeId"] == "slash-1"
    assert r["afterUp"]["active"] == "audit"
    assert r["afterEnter"] == {**r["afterEnter"], "open": False, "value": "/audit "}  # its <file> comes next
    assert r["afterEscape"]["open"] is False and r["afterEscape"]["value"] == "/comp"
    assert r["afterTab"]["open"] is False and r["afterTab"]["value"] == "/compact "
    assert r["focusAfterTab"] == "prompt-input" and r["focusAfterClick"] == "prompt-input"
    assert r["afterClick"]["value"] == ""


def test_a_user_command_runs_through_the_server_with_its_arguments(run: Run) -> None:
    r = run.phase("slash")
    answers_in_order(r["transcript"], [("Review calc.py carefully", "ANSWER-REVIEW")])
    asked = run.last_user_text(run.model.requests[5])
    assert "Review calc.py carefully and list the bugs." in asked, asked


def test_a_turn_that_ends_and_a_dialog_that_waits_while_the_view_is_hidden_are_notified(run: Run) -> None:
    r = run.phase("notify")
    assert r["notificationsBefore"] == [], r["notificationsBefore"]  # the user was watching until now
    assert any(n.startswith("agentls: the turn in") and n.endswith("ended.") for n in r["notifications"])
    assert any("asks to edit and waits for your answer" in n for n in r["notifications"]), r["notifications"]
    assert [b["badge"] for b in r["badge"] if b["shown"]] == ["2"], r["badge"]


def test_the_badge_counts_what_is_unseen_and_clears_when_the_user_is_back(run: Run) -> None:
    r = run.phase("notify")
    assert [b["badge"] for b in r["badgeWithView"] if b["shown"]] == ["1"], r["badgeWithView"]  # the dialog
    # Nothing of the chat's is counted any more (the Changes view's count of the written file may be).
    shown = [b["label"] for b in r["badgeAfter"] if b["shown"] and b["badge"]]
    assert not [label for label in shown if "waiting for your answer" in label or "finished" in label], shown
    # The dialog's notification went with its Open Chat; nothing new while the user watches.
    assert set(r["notificationsAfter"]) < set(r["notifications"]), (
        r["notificationsAfter"],
        r["notifications"],
    )


def test_the_notifications_setting_turns_notifications_and_the_badge_off(run: Run) -> None:
    r = run.phase("notify-off")
    assert r["endedWhileHidden"] is True
    assert r["toldSince"] == [] and r["newNotifications"] == [], r
    assert set(r["badgeCountsSince"]) <= {0}, r["badgeCountsSince"]
    # No badge of the chat's (the Changes view's count of a pending hunk is the review's, not a notice).
    labels = [b["label"] for b in r["badges"] if b["badge"]]
    chats = [label for label in labels if "waiting for your answer" in label or "finished" in label]
    assert chats == [], r["badges"]


def test_the_header_shows_the_sessions_mode_and_the_models_effort_levels(run: Run) -> None:
    r = run.phase("controls")
    initial = r["initial"]
    assert initial["mode"] == "ask" and initial["modeLabel"] == "Mode", initial
    assert [m.split(":")[0] for m in initial["modes"]] == ["ask", "auto", "plan"], initial["modes"]
    assert initial["effort"] == "default" and initial["levels"] == ["default", "low", "medium", "high"], (
        initial
    )


def test_auto_accept_picked_by_keys_in_the_header_writes_without_a_dialog(run: Run) -> None:
    r = run.phase("controls")
    assert r["afterKey"]["mode"] == "auto"
    assert r["dialogs"] == 0
    assert (run.folder / "auto.txt").read_text() == "written without a dialog\n"


def test_the_palette_and_slash_commands_set_mode_and_effort_and_the_header_follows(run: Run) -> None:
    r = run.phase("controls")
    assert r["afterPalette"]["mode"] == "plan"
    assert r["afterSlash"]["effort"] == "high"
    assert r["afterEffortPalette"]["effort"] == "low" and r["afterEffortPalette"]["mode"] == "plan"
    asked = next(q for q in run.model.requests if "How hard do you think?" in run.last_user_text(q))
    assert asked.body.get("reasoning_effort") == "low", {
        k: v for k, v in asked.body.items() if k != "messages"
    }
    # Before any pick the model got no reasoning_effort (its configured options applied).
    first = run.model.requests[0]
    assert "reasoning_effort" not in first.body, first.body.get("reasoning_effort")


def test_stop_and_send_stops_the_running_answer_and_runs_the_message_at_once(run: Run) -> None:
    r = run.phase("interrupt")
    answers_in_order(
        r["transcript"], [("Count to a thousand", "One two"), ("stop, say hi instead", "ANSWER-INTERRUPT")]
    )
    assert r["stopped"] >= 1, "the count's answer is marked as stopped"
    assert r["focusAfter"] == "prompt-input" and r["queue"] == []
    assert "stop, say hi instead" in run.last_user_text(run.model.requests[-1])
