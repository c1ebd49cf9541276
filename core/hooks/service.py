"""``Hooks``: the configured commands of every event, run for the session loop.

Matching commands of one event run at once (as Claude Code runs them); their outcomes merge (any
block or deny wins). Each run is recorded as a ``hook`` part of the message it belongs to, so the
transcript shows which hook ran, how it ended and how long it took.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from core import ids
from core.hooks.decision import Outcome, read
from core.hooks.runner import HookRun, run_command
from core.hooks.settings import HookEntry
from core.message.models import AnyPart, HookPart, now_ms

log = logging.getLogger(__name__)

OUTPUT_SHOWN = 2000  # of a run's output kept in its part

# agentls' tool ids and the names Claude Code gives the same tools: a matcher may use either,
# and the hook's input carries Claude Code's name, so its documented hooks work unchanged.
CLAUDE_NAMES = {
    "bash": "Bash",
    "edit": "Edit",
    "multiedit": "MultiEdit",
    "write": "Write",
    "read": "Read",
    "glob": "Glob",
    "grep": "Grep",
    "list": "LS",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Task",
    "todowrite": "TodoWrite",
    "todoread": "TodoRead",
    "apply_patch": "ApplyPatch",
}
# The modes a hook is told (Claude Code's permission_mode values).
MODES = {"plan": "plan", "auto": "acceptEdits", "ask": "default"}


class PartSink(Protocol):
    """Where runs are recorded (``core.session.sessions.Sessions``)."""

    async def update_part(self, part: AnyPart) -> Any: ...


class Hooks:
    """The hooks of one config, run in ``directory`` (the project folder)."""

    def __init__(self, entries: Sequence[HookEntry], directory: Path) -> None:
        self._entries = tuple(entries)
        self._directory = directory

    @property
    def entries(self) -> tuple[HookEntry, ...]:
        return self._entries

    def configured(self, event: str) -> bool:
        """Whether any command is configured for ``event`` (nothing is built when not)."""
        return any(e.event == event for e in self._entries)

    async def run(
        self,
        event: str,
        payload: dict[str, Any],
        *,
        session_id: str,
        tool: str | None = None,
        record: tuple[PartSink, str] | None = None,
        message_id: str | None = None,
    ) -> Outcome:
        """Run the commands of ``event`` that match ``tool``. Each run becomes a ``hook`` part of
        message ``record[1]``, saved with ``record[0]``; with ``message_id`` instead, the parts are
        left in ``Outcome.parts`` for the caller to save (a message not stored yet). Never raises
        for a hook's own faults."""
        names = (tool, CLAUDE_NAMES.get(tool, tool)) if tool else ()
        chosen = [e for e in self._entries if e.event == event and e.matches(names)]
        outcome = Outcome()
        if not chosen:
            return outcome
        full = {
            "session_id": session_id,
            "transcript_path": None,
            "cwd": str(self._directory),
            "hook_event_name": event,
            **payload,
        }
        if tool:
            full["tool_name"] = CLAUDE_NAMES.get(tool, tool)
        runs = await asyncio.gather(
            *(run_command(e.command.command, full, self._directory, e.command.timeout) for e in chosen)
        )
        for entry, run in zip(chosen, runs, strict=True):
            one = read(event, run)
            outcome.merge(one)
            log.info("hook %s `%s`: exit %s in %d ms", event, run.command, run.exit_code, run.duration_ms)
            if record is not None:
                sink, owner = record
                await sink.update_part(_part(session_id, owner, entry, run, one))
            elif message_id is not None:
                outcome.parts.append(_part(session_id, message_id, entry, run, one))
        return outcome


def _part(session_id: str, message_id: str, entry: HookEntry, run: HookRun, outcome: Outcome) -> HookPart:
    shown = run.stderr.strip() or run.stdout.strip()
    if run.truncated or len(shown) > OUTPUT_SHOWN:
        shown = shown[:OUTPUT_SHOWN] + "\n[output truncated]"
    return HookPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        event=entry.event,
        command=run.command,
        source=entry.source,
        exitCode=run.exit_code,
        timedOut=run.timed_out,
        durationMs=run.duration_ms,
        output=shown,
        effect=_effect(outcome),
        time=now_ms(),
    )


def _effect(outcome: Outcome) -> str | None:
    if outcome.stop:
        return "stopped"
    if outcome.permission == "deny":
        return "denied"
    if outcome.permission == "ask":
        return "asked"
    if outcome.block:
        return "blocked"
    if outcome.context:
        return "context"
    return None


def tool_input(args: dict[str, Any]) -> dict[str, Any]:
    """A tool's arguments under Claude Code's names (``filePath`` → ``file_path``), as its hooks read them."""
    return {_snake(k): v for k, v in args.items()}


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
