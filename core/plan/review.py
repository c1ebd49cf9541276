"""Plan reviews: the plan agent's ``plan_exit`` waits here until the user approves, revises or rejects.

Modelled on the question dialog (``core.question``): a request is published as ``plan.review.asked``,
stays pending until one client answers it (any client: each lists the pending ones again after a
reload), and goes away as ``plan.review.cancelled`` when the session is aborted. The answer is
handed back to the waiting tool call, which decides what follows (``core.tools.plan_exit``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, QuestionRejectedError
from core.events import (
    PlanComment,
    PlanReviewAsked,
    PlanReviewCancelled,
    PlanReviewReplied,
    PlanReviewRequest,
)
from core.ids import ascending
from core.record import record, struct

log = logging.getLogger(__name__)

PlanReply = Literal["approve", "revise", "reject"]
PLAN_REPLIES: tuple[PlanReply, ...] = ("approve", "revise", "reject")


@record
class PlanAnswer:
    """What the user said about a plan: the choice, an optional message and line comments."""

    reply: PlanReply
    message: str | None = None
    comments: tuple[PlanComment, ...] = ()


class PlanReviewCancelledError(QuestionRejectedError):
    """The plan review went away unanswered (the session was aborted): the turn stops."""


@struct
class _Pending:
    request: PlanReviewRequest
    future: asyncio.Future[PlanAnswer]


class PlanReviews:
    """Pending plan reviews of every session, keyed by request id."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._pending: dict[str, _Pending] = {}

    async def ask(
        self,
        session_id: str,
        message_id: str | None,
        call_id: str | None,
        path: str,
        text: str,
        abort: asyncio.Event,
    ) -> PlanAnswer:
        """Present the plan and wait for the answer; PlanReviewCancelledError when ``abort`` is set
        (or the session's dialogs are cancelled) first."""
        request = PlanReviewRequest(
            id=ascending("pln"),
            sessionID=session_id,
            messageID=message_id,
            callID=call_id,
            path=path,
            text=text,
        )
        future: asyncio.Future[PlanAnswer] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = _Pending(request, future)
        log.info("plan review %s asked in %s (%s)", request.id, session_id, path)
        self._bus.publish(PlanReviewAsked(request=request))
        aborted = asyncio.ensure_future(abort.wait())
        try:
            waiters: set[asyncio.Future[Any]] = {future, aborted}
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            if not future.done():
                self._cancel(request.id)
            return await future
        except asyncio.CancelledError:
            future.cancel()  # no one waits for it now
            self._cancel(request.id)
            raise
        finally:
            aborted.cancel()
            self._pending.pop(request.id, None)

    def reply(self, request_id: str, answer: PlanAnswer) -> None:
        """Answer a pending review (NotFoundError when it is not pending; InvalidInputError for a
        revision that says nothing)."""
        pending = self._pending.get(request_id)
        if pending is None:
            raise NotFoundError(f"no pending plan review {request_id}")
        check_answer(pending.request, answer)
        del self._pending[request_id]
        pending.future.set_result(answer)
        log.info("plan review %s: %s", request_id, answer.reply)
        self._bus.publish(
            PlanReviewReplied(sessionID=pending.request.sessionID, requestID=request_id, reply=answer.reply)
        )

    def pending(self, session_id: str | None = None) -> list[PlanReviewRequest]:
        """Plan reviews waiting for an answer, oldest first."""
        requests = [p.request for p in self._pending.values()]
        return [r for r in requests if session_id is None or r.sessionID == session_id]

    def cancel_session(self, session_id: str) -> None:
        """Cancel the session's pending reviews (the session was aborted)."""
        for pending in list(self._pending.values()):
            if pending.request.sessionID == session_id:
                self._cancel(pending.request.id)

    def _cancel(self, request_id: str) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is None:
            return
        if not pending.future.done():
            pending.future.set_exception(
                PlanReviewCancelledError("The session was aborted before the user answered the plan review.")
            )
        log.info("plan review %s cancelled", request_id)
        self._bus.publish(PlanReviewCancelled(sessionID=pending.request.sessionID, requestID=request_id))


def check_answer(request: PlanReviewRequest, answer: PlanAnswer) -> None:
    """InvalidInputError for an answer the plan agent could not act on."""
    if answer.reply not in PLAN_REPLIES:
        raise InvalidInputError(
            f"unknown plan reply {answer.reply!r}; the replies are {', '.join(PLAN_REPLIES)}"
        )
    if answer.reply == "revise" and not answer.comments and not (answer.message or "").strip():
        raise InvalidInputError("a revision needs a message or at least one line comment")
    lines = request.text.count("\n") + 1
    for comment in answer.comments:
        if comment.line >= lines:
            raise InvalidInputError(f"comment on line {comment.line + 1}: the plan has {lines} lines")
