"""Slash commands over ACP with the official SDK client: the commands announced, user commands
from the project's files, ``!`shell` `` asking through ``session/request_permission``, /undo and /redo."""

from __future__ import annotations

import json
from pathlib import Path

from demo.fake_script import Turn
from tests.acp.conftest import Acp


def text_block(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def user_text(acp: Acp, index: int) -> str:
    """What the user messages of model request ``index`` said."""
    messages = acp.model.requests[index].messages
    return json.dumps([m.get("content") for m in messages if m.get("role") == "user"])


async def test_user_commands_are_announced_and_run_with_arguments_and_files(acp: Acp) -> None:
    write(
        acp.project / ".agentls" / "command" / "review.md",
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview @$1 with care for $2\n",
    )
    write(acp.project / ".claude" / "commands" / "greet.md", "Say hello to $ARGUMENTS")
    acp.model.script(Turn.text("Reviewed."), Turn.text("Hello!"), Turn.text("About tmp."))
    prompts = [
        text_block("/review hello.py the greeting"),
        [*text_block("/greet"), *text_block("the team")],  # text blocks after the first are arguments
        text_block("/tmp is full, why?"),  # names no command: an ordinary prompt
    ]
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    assert [a.get("stopReason") for a in run.results["answers"]] == ["end_turn"] * 3

    [announced, *_] = run.updates("available_commands_update")
    listed = {c["name"]: c for c in announced["availableCommands"]}
    assert {"compact", "undo", "redo", "init", "review", "greet"} <= set(listed)
    assert listed["review"]["description"] == "Review a file"
    assert listed["review"]["input"] == {"hint": "<file>"}

    assert "Review @hello.py with care for the greeting" in user_text(acp, 0)
    assert "print('hello')" in user_text(acp, 0)  # the @file's contents went with it
    assert "Say hello to the team" in user_text(acp, 1)
    assert "/tmp is full, why?" in user_text(acp, 2)


async def test_a_shell_command_in_a_template_asks_the_client_and_its_output_is_sent(acp: Acp) -> None:
    write(acp.project / ".agentls" / "command" / "answer.md", "The answer: !`python3 -c 'print(6*7)'`")
    acp.model.script(Turn.text("42 it is."))
    run = await acp.run("blocks", PROMPTS=json.dumps([text_block("/answer")]))
    assert run.failure is None, run.failure
    [asked] = [e["params"] for e in run.log if e["kind"] == "permission"]
    assert "python3 -c 'print(6*7)'" in json.dumps(asked["toolCall"])
    assert "The answer: 42" in user_text(acp, 0)


async def test_a_rejected_shell_command_fails_the_prompt_and_sends_nothing(acp: Acp) -> None:
    write(acp.project / ".agentls" / "command" / "answer.md", "The answer: !`python3 -c 'print(6*7)'`")
    prompts = json.dumps([text_block("/answer")])
    run = await acp.run("blocks", PROMPTS=prompts, PERMISSION_CHOICE="reject_once")
    assert run.failure is None, run.failure
    [answer] = run.results["answers"]
    assert "error" in answer and "reject" in answer["error"]["message"].lower(), answer
    assert acp.model.requests == []


async def test_undo_and_redo_revert_the_last_turn_and_say_so(acp: Acp) -> None:
    acp.model.script(Turn.text("First answer."))
    prompts = [text_block("first"), text_block("/undo"), text_block("/redo"), text_block("/redo")]
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    answers = run.results["answers"]
    assert [a.get("stopReason") for a in answers[:3]] == ["end_turn"] * 3
    assert answers[3]["error"]["code"] == -32602 and "nothing to redo" in answers[3]["error"]["message"]
    said = run.text()
    assert "Undid the last turn." in said and "Brought back what /undo took away." in said
    assert len(acp.model.requests) == 1


async def test_a_command_file_written_during_a_turn_is_announced_and_runs_next(acp: Acp) -> None:
    new = acp.project / ".agentls" / "command" / "shout.md"
    acp.model.script(
        Turn.tool_call("write", {"filePath": str(new), "content": "Shout $ARGUMENTS\n"}),
        Turn.text("Wrote the command."),
        Turn.text("HELLO"),
    )
    prompts = [text_block("make a shout command"), text_block("/shout hello")]
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    updates = run.updates("available_commands_update")
    assert "shout" not in {c["name"] for c in updates[0]["availableCommands"]}
    assert "shout" in {c["name"] for c in updates[-1]["availableCommands"]}
    assert "Shout hello" in user_text(acp, 2)


async def test_compact_summarises_through_the_command_path(acp: Acp) -> None:
    acp.model.script(Turn.text("First answer."), Turn.text("Goal: the summary."))
    run = await acp.run("blocks", PROMPTS=json.dumps([text_block("first"), text_block("  /compact  ")]))
    assert run.failure is None, run.failure
    assert [a.get("stopReason") for a in run.results["answers"]] == ["end_turn", "end_turn"]
    assert len(acp.model.requests) == 2  # the summary request; "/compact" was not sent as a prompt
    assert "/compact" not in user_text(acp, 1)
