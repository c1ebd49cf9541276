"""Storage benchmark: listing, loading a big session newest-first, streaming deltas, database size.

Run: .venv/bin/python bench/storage.py [--dir DIR] [--messages 10000] [--sessions 200] [--seconds 3]

Builds a project with ``--sessions`` sessions, one of which holds ``--messages`` messages with five
parts each (text, reasoning, a completed tool call with ~2 KB of output, step-start, step-finish),
then measures what the editor and the loop feel: listing sessions, opening the store after a
clean close and after an unclean one (recovery runs at both, the whole-file integrity check only
at the second), the first page of the big session, the full newest-first
stream, and how many deltas per second ``Sessions.append_delta`` sustains with its flush policy.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import ids
from core.bus import Bus
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    ModelRef,
    PartTime,
    ReasoningPart,
    Session,
    SessionTime,
    StepFinishPart,
    StepStartPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolTimeDone,
    UserMessage,
    UserTime,
    now_ms,
)
from core.session.sessions import Sessions
from core.storage import DB_NAME, Store

PARAGRAPH = "The loop streams text into parts; the store keeps them. " * 8  # ~450 chars
TOOL_OUTPUT = "\n".join(f"{i:4d}  def handler_{i}(request): return respond(request, {i})" for i in range(36))


class CountingStore(Store):
    """Counts part batches, to report how many writes the delta stream cost."""

    batches = 0

    async def upsert_parts(self, parts: Sequence[AnyPart]) -> None:
        await super().upsert_parts(parts)
        self.batches += 1


def _session(project_id: str, title: str, updated: int) -> Session:
    return Session(
        id=ids.ascending("ses"),
        projectID=project_id,
        title=title,
        directory="/bench",
        time=SessionTime(created=updated, updated=updated),
    )


def _parts(session_id: str, message_id: str, now: int) -> list[AnyPart]:
    def pid() -> str:
        return ids.ascending("prt")

    return [
        StepStartPart(id=pid(), sessionID=session_id, messageID=message_id),
        ReasoningPart(
            id=pid(),
            sessionID=session_id,
            messageID=message_id,
            text=PARAGRAPH,
            time=PartTime(start=now, end=now),
        ),
        ToolPart(
            id=pid(),
            sessionID=session_id,
            messageID=message_id,
            callID=f"call_{message_id[-8:]}",
            tool="read",
            state=ToolStateCompleted(
                input={"filePath": "src/app.py"},
                output=TOOL_OUTPUT,
                title="src/app.py",
                time=ToolTimeDone(start=now, end=now),
            ),
        ),
        TextPart(
            id=pid(),
            sessionID=session_id,
            messageID=message_id,
            text=PARAGRAPH,
            time=PartTime(start=now, end=now),
        ),
        StepFinishPart(id=pid(), sessionID=session_id, messageID=message_id, reason="tool-calls", cost=0.001),
    ]


async def build(store: Store, sessions: int, messages: int) -> tuple[str, str]:
    """The project and the id of its big session."""
    workdir = Path(store.path).parent / "worktree"
    workdir.mkdir(exist_ok=True)
    project = await store.ensure_project(workdir)
    base = now_ms() - sessions * 1000
    for i in range(sessions - 1):
        await store.insert_session(_session(project.id, f"session {i}", base + i * 1000))
    big = _session(project.id, "the big one", now_ms())
    await store.insert_session(big)
    now = now_ms()
    user_id = ""
    batch: list[AnyPart] = []
    for i in range(messages):
        message_id = ids.ascending("msg")
        if i % 2 == 0:
            user_id = message_id
            info: UserMessage | AssistantMessage = UserMessage(
                id=message_id,
                sessionID=big.id,
                time=UserTime(created=now),
                agent="build",
                model=ModelRef(providerID="p", modelID="m"),
            )
        else:
            info = AssistantMessage(
                id=message_id,
                sessionID=big.id,
                parentID=user_id,
                time=AssistantTime(created=now, completed=now),
                providerID="p",
                modelID="m",
                agent="build",
                mode="build",
            )
        await store.upsert_message(info)
        batch.extend(_parts(big.id, message_id, now))
        if len(batch) >= 5000:
            await store.upsert_parts(batch)
            batch = []
    await store.upsert_parts(batch)
    return project.id, big.id


async def stream_deltas(store: CountingStore, session_id: str, seconds: float) -> tuple[float, int, int]:
    """Deltas/s through the service, the writes they cost, and the stored text length."""
    sessions = Sessions(store, Bus())
    user = UserMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        time=UserTime(created=now_ms()),
        agent="build",
        model=ModelRef(providerID="p", modelID="m"),
    )
    assistant = AssistantMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        parentID=user.id,
        time=AssistantTime(created=now_ms()),
        providerID="p",
        modelID="m",
        agent="build",
        mode="build",
    )
    await sessions.update_message(user)
    await sessions.update_message(assistant)
    part = TextPart(
        id=ids.ascending("prt"), sessionID=session_id, messageID=assistant.id, time=PartTime(start=0)
    )
    await sessions.update_part(part)
    store.batches = 0
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            sessions.append_delta(part, "text", "tok ")
            # Yield after every delta like a real provider stream would, so the flush timer can run.
            await asyncio.sleep(0)
        count += 100
    elapsed = time.perf_counter() - start
    await sessions.end_part(part)
    await sessions.close()
    stored = (await store.get_message(session_id, assistant.id)).parts[0]
    assert isinstance(stored, TextPart) and len(stored.text) == 4 * count, "deltas were lost"
    return count / elapsed, store.batches, len(stored.text)


def _timed(label: str, seconds: float, extra: str = "") -> None:
    print(f"  {label:<44} {seconds * 1000:9.1f} ms  {extra}")


async def main(directory: Path, sessions: int, messages: int, seconds: float) -> None:
    db = directory / DB_NAME
    print(f"database: {db}")
    store = await CountingStore.open(db)
    assert isinstance(store, CountingStore)
    t = time.perf_counter()
    project_id, big_id = await build(store, sessions, messages)
    built = time.perf_counter() - t
    print(f"  built {sessions} sessions, {messages} messages / {messages * 5} parts in {built:.1f} s")
    await store.close()

    t = time.perf_counter()
    store = await CountingStore.open(db)
    assert isinstance(store, CountingStore) and not store.checked
    _timed("open after a clean close (migrate, recovery)", time.perf_counter() - t)
    await store.close()
    db.with_name(db.name + ".lock").write_text("")  # what a process that died leaves
    t = time.perf_counter()
    store = await CountingStore.open(db)
    assert isinstance(store, CountingStore) and store.checked
    _timed("open after an unclean one (+ integrity_check)", time.perf_counter() - t)

    t = time.perf_counter()
    listed = await store.list_sessions(project_id, limit=50)
    _timed("list sessions (first page of 50)", time.perf_counter() - t, f"{len(listed)} sessions")
    t = time.perf_counter()
    listed = await store.list_sessions(project_id, limit=sessions)
    _timed(f"list sessions (all {sessions})", time.perf_counter() - t, f"{len(listed)} sessions")

    t = time.perf_counter()
    page = await store.page_messages(big_id, limit=100)
    _timed("big session: newest page of 100 messages", time.perf_counter() - t, f"{len(page)} messages")

    t = time.perf_counter()
    loaded = parts = 0
    async for message in store.stream_messages(big_id):
        loaded += 1
        parts += len(message.parts)
    elapsed = time.perf_counter() - t
    _timed("big session: full stream, newest first", elapsed, f"{loaded} messages, {parts} parts")

    rate, writes, length = await stream_deltas(store, big_id, seconds)
    label = "deltas through Sessions.append_delta"
    print(f"  {label:<44} {rate:9.0f} /s  {length // 4} deltas -> {writes} batched writes")
    await store.close()

    size = await asyncio.to_thread(_size, directory)
    print(f"  database size (db + wal, after close)     {size / 1e6:9.1f} MB")


def _size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.glob(DB_NAME + "*") if p.is_file())


def cli() -> None:
    """Parse arguments and run in a temporary directory unless --dir is given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, default=None, help="keep the database here (must be empty)")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to stream deltas")
    args = parser.parse_args()
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(main(args.dir, args.sessions, args.messages, args.seconds))
        return
    with tempfile.TemporaryDirectory(prefix="agentls-bench-") as tmp:
        asyncio.run(main(Path(tmp), args.sessions, args.messages, args.seconds))


if __name__ == "__main__":
    cli()
