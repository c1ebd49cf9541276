"""A stock LSP client's user is asked whether to trust the project, before its config is read.

The plugins ask in the editor and say what the user chose (``initializationOptions.untrusted``);
any other client runs no code of ours, so the server asks with ``window/showMessageRequest``
("Trust this project" / "Not now"), through the plain path's dialog guard (not while the user
types; an answer typed ahead is not taken). Until the answer the agent does not open: nothing of
the project's runs, and requests wait for it. "Not now", a dismissed dialog or one left without an
answer for ``dialogTimeout`` seconds open the agent with the user's own config only.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from core.project_trust import NOT_NOW, TRUST, answer, question_for

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


async def settle_trust(server: AgentServer, root: Path) -> None:
    """Ask about ``root``'s project unless the client decided or there is nothing to ask."""
    if server.connection.trust_decided:
        return
    question = await asyncio.to_thread(question_for, root)
    if question is None:
        return
    log.info("asking whether to trust %s (it has %s)", question.worktree, ", ".join(question.items))
    message = "agentls: " + question.text(sep="\n")  # one sentence a line: inputlist does not wrap
    choice = await server.plain.choose(message, [TRUST, NOT_NOW], lsp.MessageType.Warning, lambda: True)
    trusted = choice == TRUST
    log.info("project %s: %s", question.worktree, "trusted" if trusted else "not trusted this time")
    warning = answer(question, trusted=trusted)
    if warning is not None:
        server.warn_user(warning)
    elif not trusted:
        server.show_message(
            f"agentls: only your own config is used; `agentls trust add {question.worktree}` trusts "
            "the project"
        )
