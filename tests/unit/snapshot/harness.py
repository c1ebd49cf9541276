"""A session and a fake agent for the revert and diff tests, on the real SQLite store.

``core/session/sessions.py`` (the session service) had not landed when these tests were written, so
``StoreSessions`` gives the ``SessionAccess`` protocol straight over ``core.storage.Store``.
``Agent.step`` does what the processor does around a model step: snapshot, edits, snapshot, patch part.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import ids
from core.message.models import (
    AssistantMessage,
    AssistantTime,
    MessageWithParts,
    ModelRef,
    PatchPart,
    Session,
    SessionTime,
    StepFinishPart,
    StepStartPart,
    UserMessage,
    UserTime,
    now_ms,
)
from core.snapshot.backend import Snapshots
from core.storage.messages import PartFilter
from core.storage.store import Store
from core.workspace import EditContext, Workspace


class StoreSessions:
    """SessionAccess over the real store (no events: the service adds those)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, session_id: str) -> Session:
        return await self.store.get_session(session_id)

    async def messages(self, session_id: str, parts: PartFilter | None = None) -> list[MessageWithParts]:
        return await self.store.list_messages(session_id, parts=parts)

    async def update_session(self, session: Session) -> None:
        await self.store.update_session(session)

    async def update_message(self, info: Any) -> None:
        await self.store.upsert_message(info)

    async def remove_message(self, session_id: str, message_id: str) -> None:
        await self.store.remove_message(session_id, message_id)

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> None:
        await self.store.remove_part(session_id, message_id, part_id)


Edit = Callable[[Workspace], Awaitable[None]]


@dataclass
class Agent:
    """Writes user turns and agent steps into one session, like the loop and processor would."""

    store: Store
    snapshots: Snapshots
    workspace: Workspace
    session: Session
    steps: list[AssistantMessage] = field(default_factory=list)

    @classmethod
    async def start(cls, store: Store, snapshots: Snapshots, workspace: Workspace, root: Path) -> Agent:
        project = await store.ensure_project(root)
        t = now_ms()
        session = Session(
            id=ids.descending("ses"),
            projectID=project.id,
            title="test",
            directory=str(root),
            time=SessionTime(created=t, updated=t),
        )
        await store.insert_session(session)
        return cls(store, snapshots, workspace, session)

    async def user(self, text: str = "do it") -> UserMessage:
        msg = UserMessage(
            id=ids.ascending("msg"),
            sessionID=self.session.id,
            time=UserTime(created=now_ms()),
            agent="build",
            model=ModelRef(providerID="fake", modelID="fake"),
        )
        await self.store.upsert_message(msg)
        return msg

    async def reply(self, user: UserMessage) -> AssistantMessage:
        msg = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=self.session.id,
            parentID=user.id,
            time=AssistantTime(created=now_ms()),
            providerID="fake",
            modelID="fake",
            agent="build",
            mode="build",
        )
        await self.store.upsert_message(msg)
        return msg

    async def step(self, msg: AssistantMessage, edit: Edit) -> StepStartPart:
        """One model step that runs ``edit`` between the start and finish snapshots."""
        start = await self.snapshots.track()
        start_part = StepStartPart(
            id=ids.ascending("prt"), sessionID=msg.sessionID, messageID=msg.id, snapshot=start
        )
        await self.store.upsert_part(start_part)
        await edit(self.workspace)
        end = await self.snapshots.track()
        await self.store.upsert_part(
            StepFinishPart(
                id=ids.ascending("prt"),
                sessionID=msg.sessionID,
                messageID=msg.id,
                reason="stop",
                snapshot=end,
            )
        )
        assert start is not None
        files = await self.snapshots.changed_files(start)
        if files:
            await self.store.upsert_part(
                PatchPart(
                    id=ids.ascending("prt"),
                    sessionID=msg.sessionID,
                    messageID=msg.id,
                    hash=start,
                    files=files,
                )
            )
        return start_part


CTX = EditContext("test edit", session_id=None)


def writes(root: Path, files: dict[str, bytes | None]) -> Edit:
    """An edit that writes (bytes) or deletes (None) files through the workspace."""

    async def edit(ws: Workspace) -> None:
        for rel, data in files.items():
            if data is None:
                await ws.delete(root / rel, CTX)
            else:
                await ws.write_bytes(root / rel, data, CTX)

    return edit


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the project except the .git directory, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
