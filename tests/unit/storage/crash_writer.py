"""A process that dies mid-turn: run by test_recovery.py and killed with SIGKILL.

Usage: crash_writer.py DB WORKTREE. Opens the store, creates a session with a user message (its
text ``PROMPT``), an assistant message that never completes, a running tool part and a text part, then streams
deltas through ``Sessions`` forever. Once the service's own flush timer has written three
batches it prints one JSON line (the ids, and how many chunks are known to be on disk) followed by
"ready", then keeps streaming until it is killed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from core import ids
from core.bus import Bus
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    ModelRef,
    PartTime,
    TextPart,
    ToolPart,
    ToolStateRunning,
    ToolTimeStart,
    UserMessage,
    UserTime,
    now_ms,
)
from core.session.sessions import Sessions
from core.storage import Store
from tests.ticks import next_tick

PROMPT = "make the tamarind parser stream"


def chunk(i: int) -> str:
    """The i-th delta; the test rebuilds the stream from this to check the stored prefix."""
    return f"chunk-{i:06d};"


class WatchedStore(Store):
    """Counts the batches the flush timer writes and how many chunks they made durable."""

    batches = 0
    durable = 0

    async def upsert_parts(self, parts: Sequence[AnyPart]) -> None:
        chunks = max((len(p.text) // len(chunk(0)) for p in parts if isinstance(p, TextPart)), default=0)
        await super().upsert_parts(parts)
        self.batches += 1
        self.durable = max(self.durable, chunks)


async def main(db: Path, worktree: Path) -> None:
    store = await WatchedStore.open(db)
    assert isinstance(store, WatchedStore)
    sessions = Sessions(store, Bus())
    project = await store.ensure_project(worktree)
    session = await sessions.create(project, str(worktree), title="crash")
    now = now_ms()
    user = UserMessage(
        id=ids.ascending("msg"),
        sessionID=session.id,
        time=UserTime(created=now),
        agent="build",
        model=ModelRef(providerID="p", modelID="m"),
    )
    assistant = AssistantMessage(
        id=ids.ascending("msg"),
        sessionID=session.id,
        parentID=user.id,
        time=AssistantTime(created=now),
        providerID="p",
        modelID="m",
        agent="build",
        mode="build",
    )
    await sessions.update_message(user)
    # The prompt: searchable at once, and too little for a batch: this process alone knows it is
    # not indexed yet when it dies.
    prompt = TextPart(id=ids.ascending("prt"), sessionID=session.id, messageID=user.id, text=PROMPT)
    await sessions.update_part(prompt)
    await sessions.update_message(assistant)
    tool = ToolPart(
        id=ids.ascending("prt"),
        sessionID=session.id,
        messageID=assistant.id,
        callID="call_1",
        tool="bash",
        state=ToolStateRunning(input={"command": "make"}, time=ToolTimeStart(start=now)),
    )
    await sessions.update_part(tool)
    text = TextPart(
        id=ids.ascending("prt"), sessionID=session.id, messageID=assistant.id, time=PartTime(start=now)
    )
    await sessions.update_part(text)

    i = 0
    announced = False
    while True:  # until SIGKILL: a steady stream, flushed by the service's own timer
        for _ in range(50):
            sessions.append_delta(text, "text", chunk(i))
            i += 1
        await next_tick()  # a model's stream arrives in pieces; the flush timer runs between them
        if not announced and store.batches >= 3:
            ids_ = {"session": session.id, "message": assistant.id, "tool": tool.id, "text": text.id}
            print(json.dumps({**ids_, "durable": store.durable}), "ready", flush=True)
            announced = True


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
