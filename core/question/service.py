"""The question service: publish a question, park the tool call until the user answers or dismisses it."""

from __future__ import annotations

import asyncio
import logging

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, QuestionRejectedError
from core.events import QuestionAsked, QuestionItem, QuestionRejected, QuestionReplied, QuestionRequest
from core.ids import ascending
from core.record import struct

log = logging.getLogger(__name__)

Answers = list[list[str]]


@struct
class _Pending:
    request: QuestionRequest
    future: asyncio.Future[Answers]


class Questions:
    """Pending questions of every session, keyed by request id."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._pending: dict[str, _Pending] = {}

    async def ask(
        self,
        session_id: str,
        message_id: str | None,
        call_id: str | None,
        questions: list[QuestionItem],
    ) -> Answers:
        """Ask and wait: one list of chosen labels (or typed text) per question, in order."""
        request = QuestionRequest(
            id=ascending("que"),
            sessionID=session_id,
            messageID=message_id,
            callID=call_id,
            questions=questions,
        )
        future: asyncio.Future[Answers] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = _Pending(request, future)
        log.info("question %s asked in %s (%s questions)", request.id, session_id, len(questions))
        self._bus.publish(QuestionAsked(request=request))
        try:
            return await future
        except asyncio.CancelledError:
            if self._pending.pop(request.id, None) is not None:
                self._bus.publish(QuestionRejected(sessionID=session_id, requestID=request.id))
            raise
        finally:
            self._pending.pop(request.id, None)

    def reply(self, request_id: str, answers: Answers) -> None:
        """Answer a pending question (one answer list per question)."""
        pending = self._get(request_id)
        expected = len(pending.request.questions)
        if len(answers) != expected:
            raise InvalidInputError(
                f"question {request_id} has {expected} questions, got {len(answers)} answers"
            )
        for number, (item, answer) in enumerate(zip(pending.request.questions, answers, strict=True), 1):
            labels = {option.label for option in item.options}
            if not item.custom and any(choice not in labels for choice in answer):
                raise InvalidInputError(
                    f"question {number} of {request_id} is answered only with its options: "
                    + ", ".join(sorted(labels))
                )
        self._pending.pop(request_id)
        pending.future.set_result(answers)
        self._bus.publish(
            QuestionReplied(sessionID=pending.request.sessionID, requestID=request_id, answers=answers)
        )

    def reject(self, request_id: str) -> None:
        """Dismiss a pending question: the tool call fails with ``QuestionRejectedError``."""
        self._dismiss(self._get(request_id), "The user dismissed the question without answering.")

    def pending(self, session_id: str | None = None) -> list[QuestionRequest]:
        """Questions waiting for an answer, oldest first."""
        requests = [p.request for p in self._pending.values()]
        return [r for r in requests if session_id is None or r.sessionID == session_id]

    def cancel_session(self, session_id: str) -> None:
        """Dismiss the session's pending questions (the session was aborted)."""
        for pending in list(self._pending.values()):
            if pending.request.sessionID == session_id:
                self._dismiss(pending, "The session was aborted before the user answered.")

    def _get(self, request_id: str) -> _Pending:
        pending = self._pending.get(request_id)
        if pending is None:
            raise NotFoundError(f"no pending question {request_id}")
        return pending

    def _dismiss(self, pending: _Pending, message: str) -> None:
        request = pending.request
        self._pending.pop(request.id, None)
        if not pending.future.done():
            pending.future.set_exception(QuestionRejectedError(message))
        self._bus.publish(QuestionRejected(sessionID=request.sessionID, requestID=request.id))
