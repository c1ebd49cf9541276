"""The agent's dialogs as a front end sees them (``core.api.Dialogs``): permission requests,
questions, plan reviews, and the rules a session adds for itself."""

from __future__ import annotations

from core.events import PermissionRequest, PlanReviewRequest, QuestionRequest
from core.permission.rules import Ruleset
from core.permission.service import Permissions, Reply
from core.plan.review import PlanAnswer, PlanReviews
from core.question.service import Questions


class AppDialogs:
    """Implements ``core.api.Dialogs`` over the permission and question services."""

    def __init__(self, permissions: Permissions, questions: Questions, plans: PlanReviews) -> None:
        self._permissions = permissions
        self._questions = questions
        self._plans = plans
        self._session_rules: dict[str, Ruleset] = {}

    def pending_permissions(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Permission requests not answered yet, oldest first."""
        return self._permissions.pending(session_id)

    async def reply_permission(
        self, request_id: str, reply: Reply, message: str | None = None, edited: str | None = None
    ) -> None:
        """Answer a permission request (NotFoundError when it is not pending)."""
        await self._permissions.reply(request_id, reply, message=message, edited=edited)

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRequest]:
        """Questions not answered yet, oldest first."""
        return self._questions.pending(session_id)

    def answer(self, request_id: str, answers: list[list[str]]) -> None:
        """Answer a question (InvalidInputError when the number of answers is wrong)."""
        self._questions.reply(request_id, answers)

    def dismiss(self, request_id: str) -> None:
        """Dismiss a question without an answer."""
        self._questions.reject(request_id)

    def pending_plans(self, session_id: str | None = None) -> list[PlanReviewRequest]:
        """Plan reviews not answered yet, oldest first."""
        return self._plans.pending(session_id)

    def reply_plan(self, request_id: str, answer: PlanAnswer) -> None:
        """Answer a plan review (InvalidInputError for a revision without comments or message)."""
        self._plans.reply(request_id, answer)

    def deny_in_session(self, session_id: str, rules: Ruleset) -> None:
        """Rules that hold for this session only, replacing the ones set before."""
        self._session_rules[session_id] = list(rules)

    def session_rules(self, session_id: str) -> Ruleset | None:
        """The session's own rules (a subagent's derived rules, a client's session denials)."""
        return self._session_rules.get(session_id)
