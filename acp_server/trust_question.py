"""An ACP client's user is asked whether to trust a project before its own files are used.

ACP has no place to ask before ``session/new`` answers (a permission request needs a session the
client knows), so a project not trusted yet opens without its own config, commands, agents and
skills (acp_server.projects), and the first prompt of any of its sessions asks with
``session/request_permission`` before the turn runs. "Trust this project" is remembered, and the
project's agent is opened anew with its files (its MCP servers start then); "Not now", a cancelled
or failed dialog keep it as it is: the user's own config only, asked again in the next connection.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp import RequestError
from acp.schema import AllowedOutcome, ConfigOptionUpdate, PermissionOption, ToolCallUpdate

from acp_server import commands, options
from acp_server.tool_calls import text_content
from core.project_trust import NOT_NOW, TRUST, TrustQuestion, answer
from core.trust import forget

if TYPE_CHECKING:
    from acp_server.front import Front
    from acp_server.state import AcpSession

log = logging.getLogger(__name__)

OPTIONS = [
    PermissionOption(option_id="trust", name=TRUST, kind="allow_always"),
    PermissionOption(option_id="not-now", name=NOT_NOW, kind="reject_once"),
]


async def settle(front: Front, state: AcpSession) -> None:
    """Ask about the project of ``state`` if it waits for an answer (once per project: prompts of
    other sessions of it wait for the same answer)."""
    project = state.project
    if project.pending_trust is None:
        return
    async with project.asking:
        question = project.pending_trust
        if question is None:
            return  # answered while this prompt waited
        trusted = await _ask(front, state.id, question)
        project.pending_trust = None
        warning = answer(question, trusted)
        if warning is not None:
            log.warning("%s", warning)
        if not trusted:
            log.info("project %s: not trusted this time; its own files stay unused", question.worktree)
            return
        forget(question.worktree)  # it was held back while the question waited
        front.projects.trusted.add(question.worktree)
        fresh = await front.projects.reopen(project)
        log.info("project %s trusted: its agent reopened with its own files", question.worktree)
        for other in front.sessions.values():
            if other.project is project:
                other.project = fresh
                other.commands_sent = None
                front.spawn(commands.announce(front, other))  # its own commands are there now
                front.spawn(_announce_options(front, other))  # and its own models and agents


async def _announce_options(front: Front, state: AcpSession) -> None:
    changed = await options.all_options(state.project.app, state)
    await front.send(
        state.id, ConfigOptionUpdate(session_update="config_option_update", config_options=changed)
    )


async def _ask(front: Front, session_id: str, question: TrustQuestion) -> bool:
    text = f"{question.text()}\nLater: `agentls trust add {question.worktree}` or `agentls trust revoke`."
    tool_call = ToolCallUpdate(
        tool_call_id=f"trust-{session_id}",
        title=f"Trust the project {question.worktree.name}?",
        kind="other",
        status="pending",
        content=[text_content(text)],
    )
    try:
        reply = await front.client.request_permission(
            session_id=session_id, tool_call=tool_call, options=OPTIONS
        )
    except (RequestError, ConnectionError) as exc:
        log.warning("the client could not ask whether to trust %s: %s", question.worktree, exc)
        return False
    outcome = reply.outcome
    return isinstance(outcome, AllowedOutcome) and outcome.option_id == "trust"
