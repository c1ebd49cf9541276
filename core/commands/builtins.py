"""The built-in commands that act on the session, its choices and its review (``/new``, ``/rewind``,
``/model``, ``/agent``, ``/mode``, ``/effort``, ``/export``, ``/changes``, ``/keep``, ``/undo`` of hunks;
``/review``, the agent's code review, is ``core.commands.code_review``).

Each answers a ``CommandResult`` a client can show as is (``text``) and act on (``value``,
``session``, ``items``). The model and agent are the client's to apply to its next prompt: the server
checks the choice and says what it is.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from core.api import CommandItem, CommandResult, ConfigInfo, EffortState, ModeState, RevertResult
from core.errors import InvalidInputError, NotFoundError
from core.message.models import MessageWithParts, Session, TextPart, UserMessage
from core.message.review import Hunk, ReviewResult

log = logging.getLogger(__name__)

NAMES = frozenset({"new", "rewind", "model", "agent", "mode", "effort", "export", "changes", "keep"})
_LABEL = 80


class BuiltinHost(Protocol):
    """What these commands need of the agent (``core.api.Agent``)."""

    @property
    def directory(self) -> Path: ...

    async def create_session(
        self, title: str | None = None, agent: str | None = None, model: str | None = None
    ) -> Session: ...

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]: ...

    async def get_session(self, session_id: str) -> Session: ...

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult: ...

    def config_info(self) -> ConfigInfo: ...

    def check_model(self, ref: str | None = None) -> str: ...

    async def session_mode(self, session_id: str, mode: str | None = None) -> ModeState: ...

    async def session_effort(
        self, session_id: str, effort: str | None = None, model: str | None = None
    ) -> EffortState: ...

    async def export_markdown(self, session_id: str) -> str: ...

    async def review(self, session_id: str) -> list[Hunk]: ...

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult: ...

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult: ...


async def run_builtin(
    host: BuiltinHost, session_id: str, name: str, arguments: str, agent: str | None, model: str | None
) -> CommandResult:
    """Run one of ``NAMES`` (``/undo`` with hunk ids or ``all`` comes here as ``undo``)."""
    arg = arguments.strip()
    if name == "new":
        session = await host.create_session(title=arg or None, agent=agent, model=model)
        return CommandResult("new", session=session, text=f"New session {session.id}")
    if name == "rewind":
        return await _rewind(host, session_id, arg)
    if name == "model":
        return await _model(host, session_id, arg)
    if name == "agent":
        return _agent(host.config_info(), arg, agent)
    if name == "mode":
        state = await host.session_mode(session_id, arg or None)
        names = ", ".join(m.id for m in state.modes)
        return CommandResult("mode", value=state.mode, text=f"Mode: {state.mode} (modes: {names})")
    if name == "effort":
        effort = await host.session_effort(session_id, arg or None, model)
        levels = ", ".join(effort.levels) or "none: the model has no thinking control"
        return CommandResult(
            "effort", value=effort.effort, text=f"Effort: {effort.effort} (levels: {levels})"
        )
    if name == "export":
        return await _export(host, session_id, arg)
    if name == "changes":
        return _listed(await host.review(session_id))
    if name in ("keep", "undo"):
        return await _decide(host, session_id, name, arg)
    raise NotFoundError(f"built-in command /{name} has no action")


def hunk_arguments(arguments: str) -> bool:
    """Whether ``/undo arguments`` names review hunks (ids or ``all``) rather than going back a turn."""
    words = _words(arguments)
    return bool(words) and all(w == "all" or w.startswith("hnk_") for w in words)


async def _rewind(host: BuiltinHost, session_id: str, arg: str) -> CommandResult:
    session = await host.get_session(session_id)
    before = session.revert.messageID if session.revert else None
    users = [
        m
        for m in await host.messages(session_id, limit=100_000)
        if isinstance(m.info, UserMessage) and (before is None or m.info.id < before)
    ]
    if arg:
        if arg not in {m.info.id for m in users}:
            raise InvalidInputError(
                f"/rewind {arg}: not a message of this session to go back to (run /rewind)"
            )
        return CommandResult("rewind", revert=await host.revert(session_id, arg))
    items = tuple(CommandItem(m.info.id, _first_line(m), "") for m in reversed(users))
    if not items:
        return CommandResult("rewind", text="Nothing to rewind: the session has no messages yet.")
    lines = [f"- `{item.id}` {item.label}" for item in items]
    text = "Messages to go back to (newest first; `/rewind ID` undoes it and everything after):\n"
    return CommandResult("rewind", items=items, text=text + "\n".join(lines))


async def _model(host: BuiltinHost, session_id: str, arg: str) -> CommandResult:
    info = host.config_info()
    if arg:
        chosen = host.check_model(arg)  # ConfigError / ProviderError say what is wrong
        return CommandResult("model", value=chosen, text=f"Model: {chosen}")
    current = await _current_model(host, session_id) or info.default_model
    items = tuple(CommandItem(ref, ref, "current" if ref == current else "") for ref in info.models)
    lines = [f"- {ref}{' (current)' if ref == current else ''}" for ref in info.models]
    return CommandResult("model", value=current, items=items, text=f"Model: {current}\n" + "\n".join(lines))


def _agent(info: ConfigInfo, arg: str, current: str | None) -> CommandResult:
    primary = [a for a in info.agents if a.mode != "subagent"]
    if arg:
        chosen = info.agent(arg)  # NotFoundError names the agents
        if chosen.mode == "subagent":
            names = ", ".join(a.name for a in primary)
            raise InvalidInputError(f"{arg!r} is a subagent (mention it with @{arg}); agents: {names}")
        return CommandResult("agent", value=chosen.name, text=f"Agent: {chosen.name}")
    now = current or info.default_agent
    items = tuple(CommandItem(a.name, a.name, a.description or "") for a in primary)
    lines = [f"- {a.name}{' (current)' if a.name == now else ''}: {a.description or ''}" for a in primary]
    return CommandResult("agent", value=now, items=items, text=f"Agent: {now}\n" + "\n".join(lines))


async def _export(host: BuiltinHost, session_id: str, arg: str) -> CommandResult:
    markdown = await host.export_markdown(session_id)
    if not arg:
        return CommandResult("export", text=markdown)
    path = await asyncio.to_thread(_write, host.directory, arg, markdown)
    log.info("session %s exported to %s", session_id, path)
    return CommandResult("export", value=str(path), text=f"Exported the session to {path}")


def _write(directory: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``name`` (relative to ``directory`` unless absolute); the path written."""
    path = directory / Path(name).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _listed(hunks: list[Hunk]) -> CommandResult:
    if not hunks:
        return CommandResult("changes", text="No agent changes wait for review.")
    items = tuple(CommandItem(h.id, f"{h.file}: {h.lines_label()}{h.by()}", _counts(h)) for h in hunks)
    lines = [f"- `{item.id}` {item.label} ({item.detail})" for item in items]
    head = f"{len(hunks)} agent change(s) to review — `/keep` or `/undo` them all, or by id:\n"
    return CommandResult("changes", items=items, text=head + "\n".join(lines))


async def _decide(host: BuiltinHost, session_id: str, name: str, arg: str) -> CommandResult:
    words = _words(arg)
    ids = None if not words or words == ["all"] else [w for w in words if w != "all"]
    result = await (host.keep if name == "keep" else host.undo)(session_id, ids)
    verb = "Kept" if name == "keep" else "Undid"
    lines = [f"{verb} {len(result.changed)} change(s)."]
    lines += [f"- {h.file}: {h.lines_label()}" for h in result.changed]
    for conflict in result.conflicts:
        lines.append(f"Not undone, {conflict.file}: {conflict.reason}")
    return CommandResult(name, review=result, text="\n".join(lines))


def _counts(hunk: Hunk) -> str:
    if hunk.kind != "text":
        return hunk.kind
    return f"+{len(hunk.after)} -{len(hunk.before)}"


def _words(arguments: str) -> list[str]:
    return [w for w in re.split(r"[\s,]+", arguments.strip()) if w]


def _first_line(message: MessageWithParts) -> str:
    text = " ".join(p.text for p in message.parts if isinstance(p, TextPart) and not p.synthetic).strip()
    line = text.splitlines()[0] if text else "(no text)"
    return line if len(line) <= _LABEL else line[: _LABEL - 1] + "…"


async def _current_model(host: BuiltinHost, session_id: str) -> str | None:
    for message in reversed(await host.messages(session_id, limit=50)):
        if isinstance(message.info, UserMessage):
            return f"{message.info.model.providerID}/{message.info.model.modelID}"
    return None
