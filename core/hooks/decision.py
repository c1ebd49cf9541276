"""What a hook's run says, read as Claude Code documents it.

Exit code 0: success; stdout that is a JSON object is read for the fields below, any other stdout of
UserPromptSubmit and SessionStart is context for the model. Exit code 2: a blocking error whose
stderr is the reason (PreToolUse: the call is refused and the model reads why; PostToolUse,
Stop, SubagentStop: the model reads it; UserPromptSubmit: the prompt is not sent and the user
reads it). Any other exit, a timeout or a hook that cannot start: a failure the user sees, the turn
goes on.

JSON fields: ``continue: false`` stops the turn (``stopReason`` for the user); ``systemMessage`` is
shown to the user; ``decision: "block"`` with ``reason`` blocks as exit 2 does (PreToolUse's older
``"approve"``/``"block"`` map to allow/deny); ``hookSpecificOutput.permissionDecision``
(``allow``/``deny``/``ask``) with ``permissionDecisionReason`` for PreToolUse;
``hookSpecificOutput.additionalContext`` for UserPromptSubmit, SessionStart and PostToolUse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from core.hooks.runner import HookRun

Permission = Literal["allow", "deny", "ask"]
_STRENGTH: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}
_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart"})


@dataclass(slots=True)
class Outcome:
    """What the runs of one event decided, merged (a block or a deny by any hook wins)."""

    block: bool = False
    reasons: list[str] = field(default_factory=list)  # why it blocked (model or user, by event)
    permission: Permission | None = None
    permission_reason: str | None = None
    context: list[str] = field(default_factory=list)  # added to what the model reads
    stop: bool = False
    stop_reason: str | None = None
    notices: list[str] = field(default_factory=list)  # for the user only
    parts: list[Any] = field(default_factory=list)  # the runs' ``hook`` parts, when left to the caller

    @property
    def reason(self) -> str:
        return "\n".join(r for r in self.reasons if r) or "no reason given"

    def merge(self, other: Outcome) -> None:
        self.block = self.block or other.block
        self.reasons += other.reasons
        if other.permission is not None and (
            self.permission is None or _STRENGTH[other.permission] > _STRENGTH[self.permission]
        ):
            self.permission, self.permission_reason = other.permission, other.permission_reason
        self.context += other.context
        if other.stop and not self.stop:
            self.stop, self.stop_reason = True, other.stop_reason
        self.notices += other.notices
        self.parts += other.parts


def read(event: str, run: HookRun) -> Outcome:
    """The outcome of one run of a hook for ``event``."""
    out = Outcome()
    if run.timed_out:
        out.notices.append(f"the hook `{run.command}` was stopped at its timeout")
        return out
    if run.exit_code is None:
        out.notices.append(run.stderr.strip() or f"the hook `{run.command}` did not start")
        return out
    if run.exit_code == 2:
        reason = run.stderr.strip() or f"the hook `{run.command}` exited with 2 and gave no reason"
        if event == "PreToolUse":
            out.permission, out.permission_reason = "deny", reason
        elif event in ("PostToolUse", "Stop", "SubagentStop", "UserPromptSubmit"):
            out.block = True
            out.reasons.append(reason)
        else:
            out.notices.append(reason)
        return out
    if run.exit_code != 0:
        detail = run.stderr.strip() or run.stdout.strip()
        out.notices.append(
            f"the hook `{run.command}` failed (exit {run.exit_code})" + (f": {detail}" if detail else "")
        )
        return out
    data = _json_object(run.stdout)
    if data is None:
        text = run.stdout.strip()
        if text and event in _CONTEXT_EVENTS:
            out.context.append(text)
        return out
    _read_json(event, data, out)
    return out


def _read_json(event: str, data: dict[str, Any], out: Outcome) -> None:
    if data.get("continue") is False:
        out.stop = True
        reason = data.get("stopReason")
        out.stop_reason = reason if isinstance(reason, str) else None
    message = data.get("systemMessage")
    if isinstance(message, str) and message.strip():
        out.notices.append(message.strip())
    decision = data.get("decision")
    reason = data.get("reason") if isinstance(data.get("reason"), str) else None
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if event == "PreToolUse":
        wanted = specific.get("permissionDecision")
        why = specific.get("permissionDecisionReason")
        if wanted in _STRENGTH:
            out.permission = wanted
            out.permission_reason = why if isinstance(why, str) else reason
        elif decision in ("approve", "block"):
            out.permission = "allow" if decision == "approve" else "deny"
            out.permission_reason = reason
    elif decision == "block":
        out.block = True
        out.reasons.append(reason or "")
    extra = specific.get("additionalContext")
    if (
        isinstance(extra, str)
        and extra.strip()
        and event in ("UserPromptSubmit", "SessionStart", "PostToolUse")
    ):
        out.context.append(extra.strip())


def _json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
