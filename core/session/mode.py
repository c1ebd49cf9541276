"""A session's controls: its autonomy mode (ask / auto / plan, shown as Read-only) and its effort level.

The mode is about file edits only; every other tool keeps its own rules:

- ``ask``: the rules as configured (by default a dialog before each edit);
- ``auto``: an edit the rules would ask about runs at once and waits for review as hunks
  (``core.review`` records them); an explicit ``deny`` still wins, and a folder outside the project
  still asks (``external_directory`` is its own permission);
- ``plan`` (named "Read-only" wherever a user reads it, so that it is not taken for the plan
  *agent*): the plan agent's rules (edits denied except plan files, ``plan_exit`` offered) are
  added as floors, whatever the agent; approving a plan (``core.plan``) leaves it for ``ask``.

A session's choice is stored with it (``Session.mode`` / ``Session.effort``); the project remembers
the mode chosen last (a small file in the data folder), which a session that never chose one
takes when this server first uses it — except ``auto``: edits without a dialog are chosen per
session, so after an Auto-accept session the next one starts in ``ask`` (seen: a new chat wrote a
file without asking). A subagent's child session follows its parent's controls.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal, cast, get_args

from core.bus import Bus
from core.cachefile import read_capped, write_whole
from core.errors import InvalidInputError
from core.events import SessionModeChanged
from core.message.models import Session
from core.permission.rules import Rule, Ruleset, as_floor, wildcard_match
from core.record import record
from core.session.sessions import Sessions

log = logging.getLogger(__name__)

Mode = Literal["ask", "auto", "plan"]
DEFAULT_MODE: Mode = "ask"
_PROJECT_FILE_MAX = 4096


@record
class ModeInfo:
    """A mode as a client's picker shows it."""

    id: Mode
    name: str
    description: str


MODES: tuple[ModeInfo, ...] = (
    ModeInfo("ask", "Ask", "A dialog before each file edit"),
    ModeInfo("auto", "Auto-accept", "Edits land at once; review them afterwards (keep or undo hunks)"),
    ModeInfo("plan", "Read-only", "File edits are denied (plan files excepted), whatever the agent"),
)


@record
class Controls:
    """What a session's steps run with."""

    mode: Mode
    effort: str | None  # None: never chosen, the model's configured options apply


def parse_mode(value: str) -> Mode:
    """``value`` as a mode; InvalidInputError naming the modes otherwise."""
    if value not in get_args(Mode):
        raise InvalidInputError(f"unknown mode {value!r}; the modes are {', '.join(get_args(Mode))}")
    return cast(Mode, value)


def mode_rules(mode: Mode, ruleset: Ruleset, plan_rules: Ruleset) -> Ruleset:
    """``ruleset`` as the mode changes it (see the module's doc). ``plan_rules``: the plan agent's."""
    if mode == "plan":
        return [*ruleset, *as_floor(plan_rules, origin="mode plan")]
    if mode == "ask":
        return ruleset
    # auto: wherever the rules would ask about an edit, allow it; a deny stays where it was.
    out: Ruleset = [Rule("edit", "*", "allow")]
    for rule in ruleset:
        out.append(rule)
        if rule.action == "ask" and wildcard_match(rule.permission, "edit"):
            out.append(Rule("edit", rule.pattern, "allow"))
    return out


class SessionControls:
    """Each session's mode and effort, kept here for ``now`` and read again from the store by ``get``
    (another process — another client of the project — may have chosen since)."""

    def __init__(self, sessions: Sessions, bus: Bus, data_dir: Path, project_id: str) -> None:
        self._sessions = sessions
        self._bus = bus
        self._file = data_dir / "modes" / f"{project_id}.json"
        self._own: dict[str, Controls] = {}
        self._parent: dict[str, str] = {}  # child session → the session whose controls it follows
        self._project_mode: Mode | None = None

    def now(self, session_id: str) -> Controls:
        """The controls known for a session, without waiting (the project's mode when not loaded)."""
        seen: set[str] = set()
        while session_id in self._parent and session_id not in seen:
            seen.add(session_id)
            session_id = self._parent[session_id]
        return self._own.get(session_id) or Controls(self.new_session_mode(), None)

    async def get(self, session_id: str) -> Controls:
        """A session's controls as stored now (NotFoundError for an unknown session); a mode another
        process chose since is announced as ``session.mode``."""
        if session_id in self._parent:
            return await self.get(self._parent[session_id])
        session = await self._sessions.get(session_id)
        if session.parentID is not None:
            self._parent[session_id] = session.parentID
            return await self.get(session.parentID)
        # Never chosen: the project's mode (never Auto-accept), until the session chooses its own.
        chosen = session.mode in get_args(Mode)
        mode = cast(Mode, session.mode) if chosen else self.new_session_mode()
        controls = Controls(mode, session.effort)
        known = self._own.get(session_id)
        self._own[session_id] = controls
        if known is not None and known.mode != mode:
            log.info("session %s: mode %s (chosen elsewhere)", session_id, mode)
            self._bus.publish(SessionModeChanged(sessionID=session_id, mode=mode))
        return controls

    async def set_mode(self, session_id: str, mode: Mode) -> Controls:
        """Choose a session's mode (a child session's goes to its parent); the project remembers it."""
        root = await self._root(session_id)
        current = await self.get(root)
        await self._sessions.update(root, _setter(mode=mode))
        controls = Controls(mode, current.effort)
        self._own[root] = controls
        self._remember(mode)
        log.info("session %s: mode %s", root, mode)
        self._bus.publish(SessionModeChanged(sessionID=root, mode=mode))
        return controls

    async def set_effort(self, session_id: str, effort: str | None) -> Controls:
        """Choose a session's effort level (already checked against its model; None: the default)."""
        root = await self._root(session_id)
        current = await self.get(root)
        await self._sessions.update(root, _setter(effort=effort))
        controls = Controls(current.mode, effort)
        self._own[root] = controls
        log.info("session %s: effort %s", root, effort)
        return controls

    def forget(self, session_id: str) -> None:
        """Drop what is kept for a deleted session."""
        self._own.pop(session_id, None)
        self._parent.pop(session_id, None)

    def project_mode(self) -> Mode:
        """The mode the project's user chose last (``ask`` until one is chosen)."""
        if self._project_mode is None:
            self._project_mode = self._read_project_mode()
        return self._project_mode

    def new_session_mode(self) -> Mode:
        """The mode of a session that never chose one: the project's, but ``ask`` for ``auto``."""
        mode = self.project_mode()
        return DEFAULT_MODE if mode == "auto" else mode

    async def _root(self, session_id: str) -> str:
        await self.get(session_id)
        seen: set[str] = set()
        while session_id in self._parent and session_id not in seen:
            seen.add(session_id)
            session_id = self._parent[session_id]
        return session_id

    def _read_project_mode(self) -> Mode:
        try:
            data = json.loads(read_capped(self._file, _PROJECT_FILE_MAX))
        except FileNotFoundError:
            return DEFAULT_MODE
        except (OSError, ValueError) as exc:
            log.warning("the project's remembered mode cannot be read (%s); using %s", exc, DEFAULT_MODE)
            return DEFAULT_MODE
        mode = data.get("mode") if isinstance(data, dict) else None
        return cast(Mode, mode) if mode in get_args(Mode) else DEFAULT_MODE

    def _remember(self, mode: Mode) -> None:
        self._project_mode = mode
        try:
            write_whole(self._file, json.dumps({"mode": mode}).encode())
        except OSError as exc:  # the session has its mode; only the project's memory of it is lost
            log.warning("the project's mode could not be saved to %s: %s", self._file, exc)


def _setter(**values: str | None) -> Callable[[Session], None]:
    def edit(session: Session) -> None:
        for key, value in values.items():
            setattr(session, key, value)

    return edit
