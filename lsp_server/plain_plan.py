"""A plan review for stock LSP clients: the plan file opens, and a dialog asks Approve / Revise / Reject.

The plan is a real file of the project (``.agentls/plans/…``), so it opens as itself
(``window/showDocument``; a client without it is told the path). A stock dialog cannot take text,
so a revision is written into the plan: the user edits the file (saved or not — the server reads
the editor's buffer), then picks "Revise"; the difference from the plan as presented goes to the
plan agent as the revision request. "Revise" with nothing changed says so and asks again. Closing
the dialog (or no answer within ``dialogTimeout``) rejects the plan: a stock client has no list of
pending dialogs to come back to.
"""

from __future__ import annotations

import difflib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from core.errors import InvalidInputError, NotFoundError
from core.events import PlanReviewRequest
from core.plan.review import PlanAnswer
from lsp_server import plain_document

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.plain import PlainPath

log = logging.getLogger(__name__)

APPROVE, REVISE, REJECT = "Approve", "Revise", "Reject"


def plan_message(request: PlanReviewRequest, shown: bool) -> str:
    """The dialog's text: what the plan is and what each answer does."""
    where = "It is open in the editor" if shown else f"Read it in {request.path}"
    lines = request.text.count("\n") + (0 if request.text.endswith("\n") else 1)
    return (
        f"agentls: the plan agent presents its plan {request.path} ({lines} lines). {where}.\n"
        "Approve: the build agent carries it out now.\n"
        "Revise: first write your notes into the plan file, then choose Revise.\n"
        "Reject: nothing changes."
    )


def revision(request: PlanReviewRequest, now: str) -> str | None:
    """The user's edits of the plan as a revision message; None when they changed nothing."""
    if now == request.text:
        return None
    diff = difflib.unified_diff(
        request.text.splitlines(keepends=True),
        now.splitlines(keepends=True),
        f"a/{request.path}",
        f"b/{request.path}",
    )
    return (
        "The user wrote their revision into the plan file (their notes may be in it: act on them and "
        "take them out). Their changes to the plan as you presented it:\n```diff\n"
        + "".join(diff).rstrip("\n")
        + "\n```"
    )


async def ask_plan(plain: PlainPath, app: Agent, request: PlanReviewRequest) -> None:
    """Open the plan and ask until the user approves, revises with a change, or rejects."""
    server = plain.server
    path = Path(app.worktree) / request.path
    uri = path.as_uri()
    shown = await plain_document.show(server, uri)

    def pending() -> bool:
        return any(r.id == request.id for r in app.dialogs.pending_plans())

    while True:
        choice = await plain.choose(
            plan_message(request, shown), [APPROVE, REVISE, REJECT], lsp.MessageType.Info, pending
        )
        if choice == REVISE:
            message = revision(request, server.workspace.get_text_document(uri).source)
            if message is None:
                server.show_message("agentls: the plan is unchanged: write your notes into it, then Revise")
                continue
            answer = PlanAnswer("revise", message)
        elif choice == APPROVE:
            answer = PlanAnswer("approve")
        else:
            if not pending():
                return  # answered in another client, or the turn was aborted
            answer = PlanAnswer("reject", None if choice == REJECT else "The user closed the plan review.")
        try:
            app.dialogs.reply_plan(request.id, answer)
        except NotFoundError:
            log.info("plan review %s was answered elsewhere", request.id)
        except InvalidInputError as exc:  # the checks above make it unlikely; never lose the dialog
            server.show_message(f"agentls: {exc}", lsp.MessageType.Warning)
            continue
        return
