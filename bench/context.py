"""Context management at scale: a 2,000-message session holding 100 MB of tool output.

Measures, on a real SQLite store, the time to build the next request (load + filter, convert,
count) with a cold and a warm token cache and after a restart (a new counter seeded with the
counts the first process stored beside the parts), the time of a prune (one batched write), and
the request size before prune, after prune and after a compaction with a canned summary.

    .venv/bin/python bench/context.py [--messages 2000] [--megabytes 100] [--encoding cl100k_base]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import ids
from core.bus import Bus
from core.config.schema import CompactionConfig, ModelLimit
from core.context.compaction import SummaryRequest, compact
from core.context.filter import filter_compacted
from core.context.prune import prune
from core.context.tokens import TokenCounter
from core.events import Event
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    MessageWithParts,
    ModelRef,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolTimeDone,
    UserMessage,
    UserTime,
)
from core.session.sessions import Sessions
from core.storage import Store

try:
    from core.session.convert import to_model_messages
except ImportError:  # convert lands with the loop; without it the bench skips that stage
    to_model_messages = None  # type: ignore[assignment]

T = TypeVar("T")
_VOCABULARY = """
def return self value import from class async await for in if else None True False list dict result
error path file line config session message part tool output token count context summary model
request response stream event bus store index cache read write edit grep glob
"""
WORDS = _VOCABULARY.split()
SYSTEM = ["You are a coding agent. " * 400]  # ~2.4k tokens, a typical system prompt
TOOLS = [
    {"name": f"tool{i}", "description": "Does a thing. " * 60, "parameters": {"type": "object"}}
    for i in range(12)
]
CANNED_SUMMARY = "## Objective\n" + "Keep building the feature described earlier. " * 200


def corpus(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    lines = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        line = f"{rng.randint(1, 9999):>5}  {line}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


async def populate(store: Store, session_id: str, messages: int, megabytes: int) -> int:
    """Write ``messages`` messages (user/assistant turns, two tool calls per reply); returns bytes."""
    turns = messages // 2
    per_output = megabytes * 1_000_000 // (turns * 2)
    base = corpus(1_000_000)
    model = ModelRef(providerID="anthropic", modelID="claude-sonnet-4-5")
    written = 0
    for t in range(turns):
        user = UserMessage(
            id=ids.ascending("msg"),
            sessionID=session_id,
            time=UserTime(created=t),
            agent="build",
            model=model,
        )
        reply = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=session_id,
            parentID=user.id,
            time=AssistantTime(created=t, completed=t),
            providerID="anthropic",
            modelID="claude-sonnet-4-5",
            agent="build",
            mode="build",
            finish="tool-calls",
        )
        parts: list[AnyPart] = [
            TextPart(
                id=ids.ascending("prt"), sessionID=session_id, messageID=user.id, text=f"step {t}: go on"
            )
        ]
        parts.append(
            TextPart(id=ids.ascending("prt"), sessionID=session_id, messageID=reply.id, text="Reading files.")
        )
        for k in range(2):
            start = (t * 7919 + k * 104729) % (len(base) - per_output)
            output = f"[{t}.{k}]\n" + base[start : start + per_output]
            written += len(output)
            pid = ids.ascending("prt")
            state = ToolStateCompleted(
                input={"path": f"src/module_{t}_{k}.py"},
                output=output,
                title=f"src/module_{t}_{k}.py",
                time=ToolTimeDone(start=t, end=t),
            )
            parts.append(
                ToolPart(
                    id=pid,
                    sessionID=session_id,
                    messageID=reply.id,
                    callID=f"call_{pid}",
                    tool="read",
                    state=state,
                )
            )
        await store.upsert_message(user)
        await store.upsert_message(reply)
        await store.upsert_parts(parts)
    return written


async def timed(fn: Callable[[], Awaitable[T]]) -> tuple[float, T]:
    start = time.perf_counter()
    result = await fn()
    return time.perf_counter() - start, result


@dataclass
class StepTimes:
    load_filter: float
    convert: float
    count_parts: float
    byte_bound: float
    tokens: int
    estimate: int


async def build_request(sessions: Sessions, session_id: str, counter: TokenCounter) -> StepTimes:
    """What the loop does each step: load + filter, convert, and its pre-flight check (a byte bound
    of the request, then, when that does not fit, the history counted by parts + system + tools)."""
    t_load, view = await timed(lambda: filter_compacted(sessions.stream(session_id)))
    start = time.perf_counter()
    messages: list[dict[str, Any]] = to_model_messages(view) if to_model_messages else []
    t_convert = time.perf_counter() - start
    start = time.perf_counter()
    counter.estimate_request(SYSTEM, messages, TOOLS, upper_bound=True)
    t_bound = time.perf_counter() - start
    start = time.perf_counter()
    tokens = counter.count_messages(view)
    t_count = time.perf_counter() - start
    estimate = counter.estimate_request(SYSTEM, [], TOOLS) + tokens
    return StepTimes(t_load, t_convert, t_count, t_bound, tokens, estimate)


@dataclass
class BenchDeps:
    """CompactionDeps over the real Sessions with a canned summariser."""

    sessions: Sessions
    counter: TokenCounter
    limit: ModelLimit = field(default_factory=lambda: ModelLimit(context=200_000, output=64_000))
    settings: CompactionConfig = field(default_factory=CompactionConfig)

    async def history(self, session_id: str) -> list[MessageWithParts]:
        return await self.sessions.messages(session_id)

    async def update_message(self, info: UserMessage | AssistantMessage) -> object:
        await self.sessions.update_message(info)
        return None

    async def update_part(self, part: AnyPart) -> object:
        await self.sessions.update_part(part)
        return None

    async def summarize(self, request: SummaryRequest) -> MessageWithParts:
        info = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=request.session_id,
            parentID=request.parent.id,
            time=AssistantTime(created=0, completed=0),
            providerID="anthropic",
            modelID="claude-sonnet-4-5",
            agent="compaction",
            mode="compaction",
            finish="stop",
            summary=True,
        )
        part = TextPart(
            id=ids.ascending("prt"), sessionID=request.session_id, messageID=info.id, text=CANNED_SUMMARY
        )
        await self.sessions.update_message(info)
        await self.sessions.update_part(part)
        return MessageWithParts(info=info, parts=[part])

    def publish(self, event: Event) -> None:
        self.sessions.bus.publish(event)


def row(label: str, times: list[StepTimes]) -> str:
    def med(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:8.0f} ms"

    load = med([t.load_filter for t in times])
    convert = med([t.convert for t in times])
    count = med([t.count_parts for t in times])
    bound = med([t.byte_bound for t in times])
    return f"{label:<24} load+filter {load}  convert {convert}  byte bound {bound}  count_messages {count}"


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "agentls.db")
        sessions = Sessions(store, Bus())
        project = await store.ensure_project(Path(tmp))
        session = await sessions.create(project, tmp)
        t_fill, written = await timed(lambda: populate(store, session.id, args.messages, args.megabytes))
        print(
            f"session: {args.messages} messages, {written / 1e6:.1f} MB of tool output "
            f"(written in {t_fill:.1f} s)"
        )

        start = time.perf_counter()
        TokenCounter(args.encoding)  # load the encoding once, outside the measurements
        print(f"encoding {args.encoding} loaded in {(time.perf_counter() - start) * 1000:.0f} ms")

        counter = TokenCounter(args.encoding)
        cold = [await build_request(sessions, session.id, counter)]
        warm = [await build_request(sessions, session.id, counter) for _ in range(args.repeat)]
        print(row("cold token cache", cold))
        print(row(f"warm (median of {args.repeat})", warm))

        # A restart: the loop saves the counts at the end of a turn, a new process seeds from them.
        t_save, _ = await timed(lambda: store.save_token_counts(counter.take_fresh()))
        restarted = TokenCounter(args.encoding)

        async def seed() -> None:
            restarted.seed(await store.part_token_counts(session.id))

        t_seed, _ = await timed(seed)
        after_restart = [await build_request(sessions, session.id, restarted)]
        print(row("after restart (stored)", after_restart))
        print(f"stored counts: saved in {t_save * 1000:.0f} ms, read + seeded in {t_seed * 1000:.0f} ms")
        before = warm[-1]
        print(
            f"request before prune:   {before.tokens:>10,} tokens (parts)  "
            f"{before.estimate:>10,} (with system + tools)"
        )

        t_prune, freed = await timed(lambda: prune(sessions, session.id, CompactionConfig(), counter))
        after_prune = await build_request(sessions, session.id, counter)
        print(
            f"request after prune:    {after_prune.tokens:>10,} tokens (parts)  {after_prune.estimate:>10,} "
            f"(with system + tools); prune freed {freed:,} in {t_prune * 1000:.0f} ms"
        )
        print(row("after prune (warm)", [after_prune]))

        deps = BenchDeps(sessions, counter)
        t_compact, outcome = await timed(lambda: compact(session.id, auto=True, deps=deps))
        after_compact = await build_request(sessions, session.id, counter)
        print(
            f"request after compaction: {after_compact.tokens:>8,} tokens (parts)  "
            f"{after_compact.estimate:>10,} "
            f"(with system + tools); compact() {t_compact * 1000:.0f} ms, tail from {outcome.tail_start}"
        )
        print(row("after compaction", [after_compact]))
        await sessions.close()
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--encoding", default="cl100k_base")
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
