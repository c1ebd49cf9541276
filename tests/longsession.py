"""A long session written straight to the data directory, before the server starts: user prompts
and answers, each answer with a completed tool call holding a 36-line output and a Markdown text.
Shared by the long-session tests of VS Code and Neovim and ``bench/vscode_open.py``."""

from __future__ import annotations

from collections.abc import Callable
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


Text = Callable[[int], str]  # the n-th question's or answer's text


def _question(n: int) -> str:
    return f"Question {n}: what does it do?"


def _answer(n: int) -> str:
    return f"Answer {n}: the handler reads **its request** and answers.\n\n- one point\n- another point\n"


async def write_sessions(data: Path, folder: Path, title: str, messages: int) -> None:
    """A session ``title`` of ``messages`` messages ("Question n" / "Answer n"), then a short one
    (the newest, so the view opens on it)."""
    await write_session(data, folder, title, messages // 2)
    await write_session(data, folder, "A short one", 1)


async def write_session(
    data: Path, folder: Path, title: str, turns: int, question: Text = _question, answer: Text = _answer
) -> str:
    """A session ``title`` of ``turns`` questions and answers; its id."""
    store = await Store.open(data / DB_NAME)
    try:
        project = await store.ensure_project(folder)
        session = Session(
            id=ids.ascending("ses"),
            projectID=project.id,
            title=title,
            directory=str(folder),
            time=SessionTime(created=STAMP, updated=STAMP),
        )
        await store.insert_session(session)
        for n in range(turns):
            await _turn(store, session.id, question(n), answer(n))
        return session.id
    finally:
        await store.close()


async def _turn(store: Store, sid: str, question: str, answer_text: str) -> None:
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
        TextPart(id=ids.ascending("prt"), sessionID=sid, messageID=user.id, text=question),
        TextPart(
            id=ids.ascending("prt"),
            sessionID=sid,
            messageID=answer.id,
            text=answer_text,
            time=PartTime(start=1, end=2),
        ),
        tool_part,
    ]
    await store.upsert_parts(parts)
