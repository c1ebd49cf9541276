"""What a hook's exit code and output decide, per event, as Claude Code documents them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.hooks.decision import Outcome, read
from core.hooks.runner import HookRun


def ran(code: int | None, stdout: str = "", stderr: str = "", timed_out: bool = False) -> HookRun:
    return HookRun("./hook.sh", code, stdout, stderr, 5, timed_out=timed_out)


def fields(outcome: Outcome) -> dict[str, Any]:
    keys = (
        "block",
        "reasons",
        "permission",
        "permission_reason",
        "context",
        "stop",
        "stop_reason",
        "notices",
    )
    return {k: getattr(outcome, k) for k in keys if getattr(outcome, k) not in (False, None, [])}


@pytest.mark.parametrize(
    ("event", "run", "expected"),
    [
        # exit 0, plain output: context only where Claude Code adds it
        ("UserPromptSubmit", ran(0, "branch: main\n"), {"context": ["branch: main"]}),
        ("SessionStart", ran(0, "todo: fix #12"), {"context": ["todo: fix #12"]}),
        ("PreToolUse", ran(0, "checked"), {}),
        ("Stop", ran(0, "ok"), {}),
        # exit 2: blocking, stderr is the reason
        (
            "PreToolUse",
            ran(2, stderr="rm is not allowed\n"),
            {"permission": "deny", "permission_reason": "rm is not allowed"},
        ),
        ("PostToolUse", ran(2, stderr="lint failed"), {"block": True, "reasons": ["lint failed"]}),
        ("Stop", ran(2, stderr="tests fail"), {"block": True, "reasons": ["tests fail"]}),
        ("UserPromptSubmit", ran(2, stderr="no secrets"), {"block": True, "reasons": ["no secrets"]}),
        ("Notification", ran(2, stderr="x"), {"notices": ["x"]}),
        (
            "PreToolUse",
            ran(2),
            {
                "permission": "deny",
                "permission_reason": "the hook `./hook.sh` exited with 2 and gave no reason",
            },
        ),
        # other exits, timeouts, no start: the user is told, nothing is decided
        ("PreToolUse", ran(1, stderr="boom"), {"notices": ["the hook `./hook.sh` failed (exit 1): boom"]}),
        ("Stop", ran(None, timed_out=True), {"notices": ["the hook `./hook.sh` was stopped at its timeout"]}),
        (
            "Stop",
            ran(None, stderr="the hook could not start: x"),
            {"notices": ["the hook could not start: x"]},
        ),
    ],
)
def test_exit_codes(event: str, run: HookRun, expected: dict[str, Any]) -> None:
    assert fields(read(event, run)) == expected


def js(value: dict[str, Any]) -> str:
    return json.dumps(value)


@pytest.mark.parametrize(
    ("event", "output", "expected"),
    [
        (
            "PreToolUse",
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "Use rg",
                }
            },
            {"permission": "deny", "permission_reason": "Use rg"},
        ),
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "prod config"}},
            {"permission": "ask", "permission_reason": "prod config"},
        ),
        ("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "allow"}}, {"permission": "allow"}),
        (
            "PreToolUse",
            {"decision": "block", "reason": "old style"},
            {"permission": "deny", "permission_reason": "old style"},
        ),
        (
            "PreToolUse",
            {"decision": "approve", "reason": "fine"},
            {"permission": "allow", "permission_reason": "fine"},
        ),
        (
            "PostToolUse",
            {"decision": "block", "reason": "format it"},
            {"block": True, "reasons": ["format it"]},
        ),
        (
            "PostToolUse",
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "2 lint warnings"}},
            {"context": ["2 lint warnings"]},
        ),
        (
            "UserPromptSubmit",
            {"decision": "block", "reason": "contains a key"},
            {"block": True, "reasons": ["contains a key"]},
        ),
        (
            "UserPromptSubmit",
            {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "time: 10:00"}},
            {"context": ["time: 10:00"]},
        ),
        (
            "Stop",
            {"decision": "block", "reason": "run the tests first"},
            {"block": True, "reasons": ["run the tests first"]},
        ),
        (
            "Stop",
            {"continue": False, "stopReason": "budget spent"},
            {"stop": True, "stop_reason": "budget spent"},
        ),
        ("Notification", {"systemMessage": "sent to phone"}, {"notices": ["sent to phone"]}),
        ("Stop", {"suppressOutput": True}, {}),
    ],
)
def test_json_output(event: str, output: dict[str, Any], expected: dict[str, Any]) -> None:
    assert fields(read(event, ran(0, js(output)))) == expected


@pytest.mark.parametrize("stdout", ["{not json", "[1, 2]", '"text"'])
def test_output_that_is_not_a_json_object_is_plain_text(stdout: str) -> None:
    assert fields(read("UserPromptSubmit", ran(0, stdout))) == {"context": [stdout]}


def test_merged_outcomes_keep_the_strongest_decision_and_every_reason() -> None:
    merged = Outcome()
    for event, run in [
        ("PreToolUse", ran(0, js({"hookSpecificOutput": {"permissionDecision": "allow"}}))),
        ("PreToolUse", ran(2, stderr="no")),
        ("PreToolUse", ran(0, js({"hookSpecificOutput": {"permissionDecision": "ask"}}))),
    ]:
        merged.merge(read(event, run))
    assert (merged.permission, merged.permission_reason) == ("deny", "no")
