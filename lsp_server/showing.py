"""``agent/session/show``: which sessions the client's chats show, for the agent host.

Attached to the host (docs/host.md), every front end that shows a session is told who else shows
it (``session.watchers``, forwarded as ``agent/event``): the chat says "also open in Neovim". The
client sends the whole list whenever one of its chats opens a session, switches to another, or
closes (``[]``: none). In-process there is no other front end: the notification changes nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from core.errors import AgentError
from lsp_server import protocol as p

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

SESSION_SHOW = "agent/session/show"


def register(server: AgentServer) -> None:
    """Add the ``agent/session/show`` notification to ``server``."""
    server.agent_methods.add(SESSION_SHOW)

    @server.feature(SESSION_SHOW)
    def session_show(params: Any) -> None:
        try:
            shown = p.parse(p.SessionShow, params)
        except JsonRpcInvalidParams as exc:
            log.warning("ignoring malformed %s: %s", SESSION_SHOW, exc.message)
            return
        server.spawn(_show(server, list(shown.sessionIDs)))


async def _show(server: AgentServer, sessions: list[str]) -> None:
    try:
        app = await server.app()
    except Exception:  # the agent did not open: every request says why, nothing to tell a host
        return
    # In-process there is no other front end: ``show`` changes nothing. Attached, the host counts a
    # session once whichever project's connection shows it, so a worktree session shown through the
    # checkout's agent names this editor to the worktree's watchers too (tests/host/test_watchers.py).
    try:
        await app.show(sessions)
    except AgentError as exc:  # the host went away: the reattach tells it again
        log.info("%s %s not passed to the host: %s", SESSION_SHOW, sessions, exc)
