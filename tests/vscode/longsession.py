"""A long session written straight to the data directory, before the server starts: user prompts
and answers, each answer with a Markdown text and a completed tool call holding a 36-line output.
Shared by the long-session e2e test and ``bench/vscode_open.py``."""

from __future__ import annotations

from pathlib import Path

from core import ids
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    ModelRef,
    PartTime,
    Session,
    SessionTime,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolTimeDone,
    UserMessage,
    UserTime,
)
from core.storage import DB_NAME, Store

TOOL_OUTPUT = "\n".join(f"{i:4d}  def handler_{i}(request): return respond(request, {i})" for i in range(36))
STAMP = 1_767_225_600_000


async def write_sessions(data: Path, folder: Path, title: str, messages: int) -> None:
    """A session ``title`` of ``messages`` messages ("Question n" / "Answer n"), then a short one
    (the newest, so the view opens on it)."""
    store = await Store.open(data / DB_NAME)
    try:
        project = await store.ensure_project(folder)
        for name, turns in ((title, messages // 2), ("A short one", 1)):
            session = Session(
                id=ids.ascending("ses"),
                projectID=project.id,
                title=name,
                directory=str(folder),
                time=SessionTime(created=STAMP, updated=STAMP),
            )
            await store.insert_session(session)
            for n in range(turns):
                await _turn(store, session.id, n)
    finally:
        await store.close()


async def _turn(store: Store, sid: str, n: int) -> None:
    user = UserMessage(
        id=ids.ascending("msg"),
        sessionID=sid,
        time=UserTime(created=STAMP),
        agent="build",
        model=ModelRef(providerID="fake", modelID="m"),
    )
    answer = AssistantMessage(
        id=ids.ascending("msg"),
        sessionID=sid,
        parentID=user.id,
        time=AssistantTime(created=STAMP, completed=STAMP),
        providerID="fake",
        modelID="m",
        agent="build",
        mode="build",
    )
    await store.upsert_message(user)
    await store.upsert_message(answer)
    text = f"Answer {n}: the handler reads **its request** and answers.\n\n- one point\n- another point\n"
    tool_part = ToolPart(
        id=ids.ascending("prt"),
        sessionID=sid,
        messageID=answer.id,
        callID=ids.ascending("tool"),
        tool="read",
        state=ToolStateCompleted(
            input={"filePath": "src/app.py"},
            output=TOOL_OUTPUT,
            title="src/app.py",
            metadata={},
            time=ToolTimeDone(start=1, end=2),
        ),
    )
    parts: list[AnyPart] = [
        TextPart(
            id=ids.ascending("prt"), sessionID=sid, messageID=user.id, text=f"Question {n}: what does it do?"
        ),
        TextPart(
            id=ids.ascending("prt"),
            sessionID=sid,
            messageID=answer.id,
            text=text,
            time=PartTime(start=1, end=2),
        ),
        tool_part,
    ]
    await store.upsert_parts(parts)
