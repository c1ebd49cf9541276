"""The permission service: evaluate a tool's request, ask the user when needed, remember "always".

Asking publishes ``permission.asked`` and parks the tool call on a future until a client replies.
"always" approvals are allow rules kept per project in the store, so they survive a restart and
can be listed and revoked (``agentls permissions``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Literal, Protocol

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, PermissionDeniedError, PermissionRejectedError
from core.events import PermissionAsked, PermissionReplied, PermissionRequest, TaskOrigin
from core.ids import ascending
from core.permission.request import PermissionAsk, Proposal
from core.permission.rules import Rule, Ruleset, decide
from core.record import struct

log = logging.getLogger(__name__)

Reply = Literal["once", "always", "reject"]


class Approval(Protocol):
    """A stored "always" approval."""

    @property
    def id(self) -> str: ...
    @property
    def permission(self) -> str: ...
    @property
    def pattern(self) -> str: ...


class ApprovalStore(Protocol):
    """The part of the store the service uses."""

    async def add_approval(self, project_id: str, permission: str, pattern: str) -> str: ...
    async def list_approvals(self, project_id: str) -> Sequence[Approval]: ...
    async def revoke_approval(self, project_id: str, approval_id: str) -> None: ...


@struct
class _Pending:
    request: PermissionRequest
    ruleset: Ruleset
    future: asyncio.Future[None]
    proposal: Proposal | None = None


class Permissions:
    """Permission checks and dialogs for one project."""

    def __init__(self, bus: Bus, store: ApprovalStore, project_id: str) -> None:
        self._bus = bus
        self._store = store
        self._project_id = project_id
        self._approvals: Ruleset = []
        self._pending: dict[str, _Pending] = {}

    @classmethod
    async def open(cls, bus: Bus, store: ApprovalStore, project_id: str) -> Permissions:
        """A service with the project's stored approvals loaded."""
        service = cls(bus, store, project_id)
        await service.reload()
        return service

    async def reload(self) -> None:
        """Read the project's "always" approvals from the store again."""
        rows = await self._store.list_approvals(self._project_id)
        self._approvals = [Rule(row.permission, row.pattern, "allow") for row in rows]

    def approvals(self) -> Ruleset:
        """The project's approvals as allow rules (they answer what the rules would ask; see ``decide``)."""
        return list(self._approvals)

    async def revoke(self, approval_id: str) -> None:
        """Forget one stored approval (NotFoundError when the project has no such approval)."""
        await self._store.revoke_approval(self._project_id, approval_id)
        await self.reload()

    async def ask(
        self,
        session_id: str,
        message_id: str | None,
        call_id: str | None,
        ask: PermissionAsk,
        ruleset: Ruleset,
        task: TaskOrigin | None = None,
    ) -> None:
        """Return when the call may go ahead; raise when a rule denies it or the user rejects it.
        ``task``: the parent's task call, when ``session_id`` is a subagent's (the dialog names it)."""
        patterns = ask.patterns or ["*"]
        rules = [decide(ask.permission, p, ruleset, self._approvals) for p in patterns]
        for pattern, rule in zip(patterns, rules, strict=True):
            if rule.action == "deny":
                raise PermissionDeniedError(_denied_message(ask.permission, pattern, rule))
        if all(rule.action == "allow" for rule in rules):
            return
        request = PermissionRequest(
            id=ascending("per"),
            sessionID=session_id,
            messageID=message_id,
            callID=call_id,
            permission=ask.permission,
            patterns=patterns,
            title=ask.title or f"{ask.permission}: {', '.join(patterns)}",
            metadata={**ask.metadata, **({"editable": True} if ask.proposal is not None else {})},
            always=list(ask.always),
            task=task,
        )
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = _Pending(request, list(ruleset), future, ask.proposal)
        log.info("permission %s asked in %s: %s %s", request.id, session_id, ask.permission, patterns)
        self._bus.publish(PermissionAsked(request=request))
        try:
            await future
        except asyncio.CancelledError:
            # The call went away (abort): close the dialog on the clients.
            if self._pending.pop(request.id, None) is not None:
                self._publish_reply(request, "reject")
            raise
        finally:
            self._pending.pop(request.id, None)

    async def reply(
        self,
        request_id: str,
        reply: Reply,
        message: str | None = None,
        patterns: list[str] | None = None,
        edited: str | None = None,
    ) -> None:
        """Answer a pending request; ``patterns`` replaces the request's "always" patterns;
        ``edited``: the user's version of an editable proposal, accepted in its place."""
        pending = self._pending.get(request_id)
        if pending is None:
            raise NotFoundError(f"no pending permission request {request_id}")
        request = pending.request
        if edited is not None:
            _check_edited(pending, reply)
            assert pending.proposal is not None
            pending.proposal.edited = edited
        if reply != "reject" and pending.proposal is not None:
            pending.proposal.approved = True  # this change was seen and accepted: review won't ask again
        if reply == "once":
            self._resolve(pending, "once")
        elif reply == "always":
            await self._approve(request.permission, patterns or request.always or request.patterns)
            self._resolve(pending, "always")
            for other in list(self._pending.values()):
                if self._now_allowed(other):
                    self._resolve(other, "always")
        else:
            self._reject(pending, _rejected(request, message))
            if message is None:
                # A plain reject stops the turn: the session's other dialogs go with it.
                for other in list(self._pending.values()):
                    if other.request.sessionID == request.sessionID:
                        self._reject(other, _rejected(other.request, None))

    def pending(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Requests waiting for a reply, oldest first (a reloaded client shows them again)."""
        requests = [p.request for p in self._pending.values()]
        return [r for r in requests if session_id is None or r.sessionID == session_id]

    def cancel_session(self, session_id: str) -> None:
        """Reject the session's pending requests (the session was aborted)."""
        for pending in list(self._pending.values()):
            if pending.request.sessionID == session_id:
                error = PermissionRejectedError("The session was aborted before the user answered.")
                self._reject(pending, error)

    # --- internals -------------------------------------------------------------------------

    async def _approve(self, permission: str, patterns: list[str]) -> None:
        for pattern in patterns:
            rule = Rule(permission, pattern, "allow")
            if rule in self._approvals:
                continue
            await self._store.add_approval(self._project_id, permission, pattern)
            self._approvals.append(rule)
            log.info("approved %s %r for project %s", permission, pattern, self._project_id)

    def _now_allowed(self, pending: _Pending) -> bool:
        request = pending.request
        return all(
            decide(request.permission, p, pending.ruleset, self._approvals).action == "allow"
            for p in request.patterns
        )

    def _resolve(self, pending: _Pending, reply: Reply) -> None:
        self._pending.pop(pending.request.id, None)
        if not pending.future.done():
            pending.future.set_result(None)
        self._publish_reply(pending.request, reply)

    def _reject(self, pending: _Pending, error: PermissionRejectedError) -> None:
        self._pending.pop(pending.request.id, None)
        if not pending.future.done():
            pending.future.set_exception(error)
        self._publish_reply(pending.request, "reject")

    def _publish_reply(self, request: PermissionRequest, reply: Reply) -> None:
        self._bus.publish(PermissionReplied(sessionID=request.sessionID, requestID=request.id, reply=reply))


def _check_edited(pending: _Pending, reply: Reply) -> None:
    """An edited reply must accept a request that proposed a file's text (nothing changes if not)."""
    request = pending.request
    if pending.proposal is None:
        raise InvalidInputError(
            f"edited: permission request {request.id} ({request.permission}: {', '.join(request.patterns)}) "
            "proposes no file text to edit; only an edit or write proposal can be edited"
        )
    if reply == "reject":
        raise InvalidInputError('edited: accept an edited proposal with "once" or "always", not "reject"')


def _denied_message(permission: str, pattern: str, rule: Rule) -> str:
    """What the model reads when a rule denies a call: who set the rule, and how the user lifts it
    (a mode or an agent is left from the client, never by editing the config)."""
    what = f'Permission "{permission}" for "{pattern}"'
    if rule.origin == "mode plan":
        return (
            f"{what} is refused because read-only mode is on: this session is read-only planning (file "
            "edits are denied, except plan files under .agentls/plans/). Do not retry this call and do "
            "not ask the user to change their configuration. Write the plan to a file under "
            ".agentls/plans/ and call plan_exit to present it: approving it leaves read-only mode. "
            "The user can also leave read-only mode themselves: the mode picker of their editor "
            '(VS Code: the chat\'s Mode picker or the "agentls: Set Mode" command; Neovim: :AgentlsMode; '
            'an ACP client such as Zed: the session\'s "Edits" option) or the command /mode ask (or '
            "/mode auto) in the chat."
        )
    if rule.origin.startswith("agent "):
        agent = rule.origin.removeprefix("agent ")
        lift = (
            "the user switches to the build agent: the agent picker of their editor (Neovim: "
            ":AgentlsAgent; an ACP client such as Zed: the session mode) or the command /agent build"
        )
        return (
            f'{what} is denied by the rules of the "{agent}" agent, which answers in this session '
            f'(rule: permission "{rule.permission}" pattern "{rule.pattern}" → deny). Do not retry this '
            "call and do not ask the user to change their configuration; find another way, or, if the "
            f"task needs it, say so: {lift}."
        )
    if rule.origin == "user session":
        return (
            f'{what} is refused: the user chose "Reject for this session" for it. Do not retry this '
            "call or ask the user to change any configuration; find another way, or stop and wait for "
            "the user's instructions."
        )
    if rule.origin == "subagent":
        return (
            f"{what} is denied: a subagent's session cannot do this. Do not retry this call; "
            "find another way, or finish and report what is needed to the agent that started you."
        )
    return (
        f"{what} is denied by the configuration "
        f'(rule: permission "{rule.permission}" pattern "{rule.pattern}" → deny). '
        "Do not retry this call; find another way or ask the user to change the rule."
    )


def _rejected(request: PermissionRequest, message: str | None) -> PermissionRejectedError:
    what = f"{request.permission} {', '.join(request.patterns)}"
    if message:
        return PermissionRejectedError(
            f"The user rejected this call ({what}) and said: {message}", feedback=message
        )
    return PermissionRejectedError(
        f"The user rejected this call ({what}). Stop and wait for the user's instructions."
    )
