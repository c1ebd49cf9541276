"""The services one model step uses, bundled so the processor can be driven by the loop or tests."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import Protocol

from core import ids
from core.bus import Bus
from core.events import AgentWarning
from core.message.models import TextPart, UserMessage
from core.record import struct
from core.session.sessions import Sessions

log = logging.getLogger(__name__)


class SnapshotHooks(Protocol):
    """What the processor needs of step snapshots (core.snapshot provides it)."""

    async def track(self, session_id: str | None = None) -> str | None: ...

    async def changed_files(
        self, since: str, until: str | None = None, session_id: str | None = None
    ) -> list[str]: ...


@struct
class StepServices:
    """Store, bus and the optional snapshot hooks of a step."""

    sessions: Sessions
    bus: Bus
    snapshots: SnapshotHooks | None = None
    on_patch: Callable[[str], Awaitable[None]] | None = field(default=None)
    # What the user undid that the model was not told yet (then marked told): core.review.
    review_note: Callable[[str, Callable[[str], Awaitable[bool]]], Awaitable[str | None]] | None = field(
        default=None
    )

    @property
    def snapshots_on(self) -> bool:
        """Whether steps record their file changes at all."""
        return self.snapshots is not None

    async def snapshot_track(self, session_id: str) -> str | None:
        """The state of the project's files now (None when snapshots are off or failed: a failure
        is published as an ``agent.warning`` and the caller marks the step)."""
        if self.snapshots is None:
            return None
        try:
            return await self.snapshots.track(session_id)
        except Exception as exc:  # a snapshot failure must never fail the user's turn
            log.exception("step snapshot failed in %s", session_id)
            self._unrecorded(session_id, f"the step snapshot failed ({type(exc).__name__}: {exc})")
            return None

    async def snapshot_patch(self, session_id: str, since: str, until: str | None = None) -> list[str] | None:
        """Files changed from one snapshot to another (to now when ``until`` is None); None when
        that failed (published as an ``agent.warning``)."""
        if self.snapshots is None:
            return []
        try:
            return await self.snapshots.changed_files(since, until, session_id)
        except Exception as exc:
            log.exception("step patch failed in %s", session_id)
            self._unrecorded(session_id, f"the step's patch failed ({type(exc).__name__}: {exc})")
            return None

    def _unrecorded(self, session_id: str, reason: str) -> None:
        self.bus.publish(
            AgentWarning(
                kind="snapshot",
                sessionID=session_id,
                message=f"{reason}: this step's file changes were not recorded, so revert and diff "
                "cannot show or undo them",
            )
        )

    async def tell_review(self, session_id: str) -> None:
        """Add a note of what the user undid since the model last heard to the last user message
        (stored, synthetic): the model reads it in this step's request and every later one."""
        if self.review_note is None:
            return

        async def deliver(note: str) -> bool:
            async for message in self.sessions.stream(session_id):
                if isinstance(message.info, UserMessage):
                    part = TextPart(
                        id=ids.ascending("prt"),
                        sessionID=session_id,
                        messageID=message.info.id,
                        text=note,
                        synthetic=True,
                    )
                    await self.sessions.update_part(part)
                    return True
            return False

        await self.review_note(session_id, deliver)

    async def after_patch(self, session_id: str) -> None:
        """Recompute the session's diff summary after a step changed files."""
        if self.on_patch is not None:
            await self.on_patch(session_id)
