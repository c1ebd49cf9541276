"""Run a command: a built-in one does its action, a user one or an MCP server's prompt becomes a
prompt for the agent."""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path
from typing import Protocol

from core import prompts
from core.api import CommandResult, PromptParts, RevertResult
from core.commands.builtins import NAMES, BuiltinHost, hunk_arguments, run_builtin
from core.commands.catalog import Catalog
from core.commands.code_review import run_review
from core.commands.mcp_prompts import GetPrompt, prompt_text
from core.commands.model import CommandInfo
from core.commands.template import CheckFile, RunShell, expand, fill_arguments
from core.errors import InvalidInputError, NotFoundError
from core.message.models import MessageWithParts, Session, UserMessage
from core.message.prompt_input import AgentInput, FileInput, TextInput

log = logging.getLogger(__name__)

DEFAULT_SUBAGENT = "general"


class CommandHost(BuiltinHost, Protocol):
    """What running a command needs of the agent (``core.api.Agent``)."""

    @property
    def directory(self) -> Path: ...

    async def compact(self, session_id: str) -> MessageWithParts: ...

    async def get_session(self, session_id: str) -> Session: ...

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]: ...

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult: ...

    async def unrevert(self, session_id: str) -> RevertResult: ...

    async def prompt(
        self,
        session_id: str,
        parts: PromptParts,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
    ) -> MessageWithParts: ...


async def run_command(
    host: CommandHost,
    catalog: Catalog,
    session_id: str,
    name: str,
    arguments: str,
    *,
    agent: str | None,
    model: str | None,
    shell: RunShell,
    check_file: CheckFile,
    subagents: Collection[str],
    get_prompt: GetPrompt,
    attachments: PromptParts = (),
) -> CommandResult:
    """Run ``/name arguments`` in a session; ``agent``/``model``: the session's current choice;
    ``check_file`` asks for each file a user command's ``@path`` attaches, as ``read`` would;
    ``subagents``: the agents a subtask command may run as; ``get_prompt`` renders an MCP prompt."""
    command = catalog.commands.get(name.removeprefix("/"))
    if command is None:
        known = ", ".join(f"/{n}" for n in sorted(catalog.commands))
        raise NotFoundError(f"no command /{name.removeprefix('/')} (commands: {known})")
    await host.get_session(session_id)  # NotFoundError before anything runs
    log.info("command /%s in %s (%s)", command.name, session_id, command.source)
    if command.kind == "builtin":
        if attachments and command.name != "init":
            raise InvalidInputError(f"/{command.name} takes no attached files or mentions")
        return await _builtin(host, session_id, command, arguments, agent, model, attachments)
    if command.prompt is not None:
        text = await prompt_text(get_prompt, command.prompt, arguments)
        answer = await host.prompt(session_id, [TextInput(text=text), *attachments], agent=agent, model=model)
        return CommandResult(command.name, message=answer)
    parts = [*await command_parts(host, command, arguments, shell, check_file, subagents), *attachments]
    answer = await host.prompt(session_id, parts, agent=command.agent or agent, model=command.model or model)
    return CommandResult(command.name, message=answer)


async def command_parts(
    host: CommandHost,
    command: CommandInfo,
    arguments: str,
    shell: RunShell,
    check_file: CheckFile,
    subagents: Collection[str],
) -> list[TextInput | FileInput | AgentInput]:
    """The prompt a user command sends: its expanded text, the files it names, a subagent's mention."""
    expanded = await expand(command.template, arguments, host.directory, shell, check_file)
    parts: list[TextInput | FileInput | AgentInput] = [TextInput(text=expanded.text)]
    parts.extend(FileInput(path=str(path)) for path in expanded.files)
    if command.subtask:
        subagent = command.agent or DEFAULT_SUBAGENT
        if subagent not in subagents:
            raise InvalidInputError(
                f"command /{command.name} runs as a subtask, but {subagent!r} is not a subagent "
                f"(subagents: {', '.join(sorted(subagents))})"
            )
        parts.append(AgentInput(name=subagent))
    return parts


async def _builtin(
    host: CommandHost,
    session_id: str,
    command: CommandInfo,
    arguments: str,
    agent: str | None,
    model: str | None,
    attachments: PromptParts,
) -> CommandResult:
    if command.name in NAMES or (command.name == "undo" and hunk_arguments(arguments)):
        return await run_builtin(host, session_id, command.name, arguments, agent, model)
    if command.name == "compact":
        return CommandResult("compact", message=await host.compact(session_id))
    if command.name == "undo":
        return CommandResult("undo", revert=await _undo(host, session_id))
    if command.name == "redo":
        if (await host.get_session(session_id)).revert is None:
            raise InvalidInputError("nothing to redo: no turn of this session was undone")
        return CommandResult("redo", revert=await host.unrevert(session_id))
    if command.name == "review":
        return await run_review(host, session_id, arguments, agent, model)
    if command.name == "init":
        text = fill_arguments(prompts.load("commands/init.md"), arguments).rstrip()
        parts = [TextInput(text=text), *attachments]
        answer = await host.prompt(session_id, parts, agent=agent, model=model)
        return CommandResult("init", message=answer)
    raise NotFoundError(f"built-in command /{command.name} has no action")  # a BUILTIN entry without one


async def _undo(host: CommandHost, session_id: str) -> RevertResult:
    """Revert the last user message before the current revert point (each /undo goes one turn back)."""
    session = await host.get_session(session_id)
    before = session.revert.messageID if session.revert else None
    history = await host.messages(session_id, limit=100_000)
    users = [
        m.info.id
        for m in history
        if isinstance(m.info, UserMessage) and (before is None or m.info.id < before)
    ]
    if not users:
        raise InvalidInputError("nothing to undo: the session has no earlier turn")
    return await host.revert(session_id, users[-1])
