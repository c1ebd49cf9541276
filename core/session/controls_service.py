"""Choosing a session's mode and effort as a front end asks for it (``Agent.session_mode`` /
``Agent.session_effort``): checks the choice, stores it (``SessionControls``), publishes what a
client shows, and lets edit dialogs waiting in a session that switches to ``auto`` go ahead.
``core.wiring`` builds it from the records it uses; it never sees the app.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.api_types import EffortState, ModeChoice, ModeState
from core.errors import AgentError, ConfigError, InvalidInputError, NotFoundError
from core.events import SessionEffortChanged
from core.llm import effort
from core.message.models import UserMessage
from core.permission.service import Permissions
from core.session.mode import MODES, SessionControls, parse_mode
from core.session.records import Models, Settings, Stores

log = logging.getLogger(__name__)
_RECENT = 50  # messages searched, newest first, for the session's last prompt


class ControlsService:
    """Each session's mode and effort, as a client reads and chooses them."""

    def __init__(
        self,
        controls: SessionControls,
        stores: Stores,
        settings: Settings,
        models: Models,
        permissions: Permissions,
        children_of: Callable[[str], list[str]],
    ) -> None:
        self._controls = controls
        self._stores = stores
        self._settings = settings
        self._models = models
        self._permissions = permissions
        self._children_of = children_of

    async def mode(self, session_id: str | None, mode: str | None = None) -> ModeState:
        """The session's mode, set first when ``mode`` is given (see ``core.api.Agent``)."""
        modes = tuple(ModeChoice(m.id, m.name, m.description) for m in MODES)
        if session_id is None:
            # A chat with no session yet shows the mode its session will start in, and creates the
            # session only when the user sends or chooses something (no empty sessions left behind).
            if mode is not None:
                raise InvalidInputError("a mode is chosen for a session: create the session first")
            return ModeState(None, self._controls.new_session_mode(), modes)
        if mode is not None:
            chosen = parse_mode(mode)
            await self._controls.set_mode(session_id, chosen)
            if chosen == "auto":
                await self._release_edit_dialogs(session_id)
        controls = await self._controls.get(session_id)
        return ModeState(session_id, controls.mode, modes)

    async def effort(
        self, session_id: str | None, effort_level: str | None = None, model: str | None = None
    ) -> EffortState:
        """The session's effort, set first when ``effort_level`` is given (see ``core.api.Agent``)."""
        if session_id is None:
            if effort_level is not None:
                raise InvalidInputError("an effort is chosen for a session: create the session first")
            ref = model or self._default_model()
            return EffortState(None, "default", tuple(self._levels(ref)), ref)
        ref = model or await self.session_model(session_id)
        if effort_level is not None:
            resolved = self._models.resolve(ref) if ref else None
            if effort_level == "default":
                await self._controls.set_effort(session_id, None)
            elif resolved is None:
                raise ConfigError("no model is configured: set one before choosing an effort")
            else:
                await self._controls.set_effort(session_id, effort.check(resolved, effort_level))
        state = await self._effort_state(session_id, ref)
        if effort_level is not None:
            event = SessionEffortChanged(sessionID=session_id, effort=state.effort, levels=list(state.levels))
            self._stores.bus.publish(event)
        return state

    async def session_model(self, session_id: str) -> str | None:
        """The model the session's next prompt goes to: its last prompt's, else the default's
        (NotFoundError for an unknown session)."""
        sessions = self._stores.sessions
        await sessions.get(session_id)
        for message in await sessions.page(session_id, limit=_RECENT):  # newest first
            if isinstance(message.info, UserMessage):
                ref = self._models.carry(message.info.model)
                return f"{ref.providerID}/{ref.modelID}"
        return self._default_model()

    def _default_model(self) -> str | None:
        return self._settings.agents.default().model or self._settings.config.model

    async def _effort_state(self, session_id: str, ref: str | None) -> EffortState:
        chosen = (await self._controls.get(session_id)).effort
        offered = self._levels(ref)
        current = effort.fit(chosen, offered) if chosen else None
        return EffortState(session_id, current or "default", tuple(offered), ref)

    def _levels(self, ref: str | None) -> list[str]:
        try:
            return list(effort.levels(self._models.resolve(ref))) if ref else []
        except AgentError as exc:  # no key yet: the levels show once the model can be resolved
            log.info("no effort levels for %s: %s", ref, exc)
            return []

    async def _release_edit_dialogs(self, session_id: str) -> None:
        """Edit dialogs waiting in the session when it switches to auto: the edits go ahead."""
        sessions = {session_id, *self._children_of(session_id)}
        for request in self._permissions.pending():
            if request.sessionID in sessions and request.permission == "edit":
                try:
                    await self._permissions.reply(request.id, "once")
                except NotFoundError:  # answered meanwhile
                    continue
