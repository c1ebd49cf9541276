"""Slash commands over ACP: ``available_commands_update``, and a prompt ``/name args`` that runs one.

A prompt is a command when its first block is text starting with ``/name`` and ``name`` is a
command of the session's project (built in or the user's); the rest of that line and the text
blocks after it are the arguments, and the files the client attached go with the command's
prompt. A ``/word`` that names no command is an ordinary prompt (a path, a question about ``/tmp``).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    UnstructuredCommandInput,
)

from acp_server import options
from acp_server.updates import chunk
from core.api import CommandList, CommandResult, RevertResult
from core.message.models import MessageWithParts
from core.message.prompt_input import AgentInput, FileInput, TextInput

if TYPE_CHECKING:
    from acp_server.front import Front
    from acp_server.state import AcpSession

log = logging.getLogger(__name__)

# Built-ins a host does itself (ACP has no way to move the client to a new session).
CLIENT_ONLY = frozenset({"new"})
_CHOICES = ("model", "agent")
_INVOCATION = re.compile(r"\A\s*/([\w][\w:.-]*)(?:\s+|\Z)")


@dataclass(frozen=True)
class Invocation:
    """``/name arguments`` and the files attached to it."""

    name: str
    arguments: str
    attachments: list[TextInput | FileInput | AgentInput]


def looks_like_command(inputs: list[Any]) -> bool:
    """Whether the prompt starts with ``/word`` (then the command list says whether it is one)."""
    return bool(inputs) and isinstance(inputs[0], TextInput) and _INVOCATION.match(inputs[0].text) is not None


def parse(inputs: list[Any], listed: CommandList) -> Invocation | None:
    """The command a prompt runs, or None when it is an ordinary prompt."""
    if not inputs or not isinstance(inputs[0], TextInput):
        return None
    first = inputs[0].text
    match = _INVOCATION.match(first)
    names = {c.name for c in listed.commands if not (c.kind == "builtin" and c.name in CLIENT_ONLY)}
    if match is None or match.group(1) not in names:
        return None
    words = [first[match.end() :].strip()]
    words += [i.text.strip() for i in inputs[1:] if isinstance(i, TextInput)]
    attachments = [i for i in inputs[1:] if not isinstance(i, TextInput)]
    return Invocation(match.group(1), " ".join(w for w in words if w), attachments)


def update(listed: CommandList) -> AvailableCommandsUpdate:
    """The ``available_commands_update`` that lists ``listed``."""
    return AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=[
            AvailableCommand(
                name=c.name,
                description=c.description,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
            )
            for c in listed.commands
            if not (c.kind == "builtin" and c.name in CLIENT_ONLY)
        ],
    )


async def announce(front: Front, state: AcpSession) -> None:
    """Send the session's commands when they differ from what the client was last told."""
    listed = await state.project.app.commands()
    for error in listed.errors:
        log.warning("command file: %s", error)
    names = tuple((c.name, c.description, c.hint) for c in listed.commands)
    if names == state.commands_sent:
        return
    state.commands_sent = names
    await front.send(state.id, update(listed))


async def run(front: Front, state: AcpSession, invocation: Invocation) -> MessageWithParts | None:
    """Run the command; the turn's final message when it made one (a prompt command), else None."""
    result = await state.project.app.run_command(
        state.id,
        invocation.name,
        invocation.arguments,
        agent=state.mode,
        model=state.model,
        attachments=invocation.attachments,
    )
    if result.revert is not None:
        await front.send(state.id, chunk("text", describe(invocation.name, result.revert)))
    elif result.text is not None:
        await front.send(state.id, chunk("text", result.text))
    await _apply_choice(front, state, result, invocation)
    if result.name == "compact":
        return None
    return result.message


async def _apply_choice(front: Front, state: AcpSession, result: CommandResult, chosen: Invocation) -> None:
    """``/model x`` and ``/agent x`` choose for this connection's next prompts, then tell the client
    its options changed (``/mode x`` and ``/effort x`` are announced by the feed, as any change is)."""
    if result.name not in _CHOICES or not chosen.arguments or result.value is None:
        return
    if result.name == "model":
        state.model = result.value
    elif result.name == "agent":
        state.mode = result.value
        current = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=result.value)
        await front.send(state.id, current)
    changed = await options.all_options(state.project.app, state)
    await front.send(
        state.id, ConfigOptionUpdate(session_update="config_option_update", config_options=changed)
    )


def describe(name: str, revert: RevertResult) -> str:
    """What /undo, /redo or /rewind did, for the user."""
    done = {
        "undo": "Undid the last turn.",
        "rewind": "Went back to before that message: it and everything after it are undone.",
    }.get(name, "Brought back what /undo took away.")
    lines = [done]
    for label, paths in (("restored", revert.restored), ("removed", revert.removed), ("kept", revert.kept)):
        if paths:
            lines.append(f"Files {label}: {', '.join(paths)}")
    lines.extend(revert.warnings)
    return "\n".join(lines)
