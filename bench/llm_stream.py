"""CPU cost per chunk of the model-stream decoders: lean OpenAI, lean Anthropic, and litellm.

The fake model server runs on its own thread and event loop; the client's CPU is measured with
``time.thread_time`` on the main thread, so the server's encoding work is not counted. Wall-clock
chunks/s include everything (both threads share the GIL and the machine's cores).

    .venv/bin/python bench/llm_stream.py [--deltas 20000] [--runs 3] [--routes openai-lean,...]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config.schema import Config
from core.llm.events import FinishStep, TextDelta
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.llm.stream import stream
from core.llm.transport import aclose_http_client
from demo import FakeModelServer, Turn

ROUTES = {
    "openai-lean": ("openai", "openai"),
    "anthropic-lean": ("anthropic", "anthropic"),
    "openai-litellm": ("openai", "litellm"),
    "anthropic-litellm": ("anthropic", "litellm"),
}


@dataclass
class Run:
    cpu_s: float
    wall_s: float
    deltas: int


def _answer(deltas: int) -> str:
    # Distinct pieces of 6 characters, like tokens of a real answer (no repeated-chunk shortcut).
    return "".join(f"w{i % 100_000:05d}" for i in range(deltas))


async def _one(srv: FakeModelServer, protocol: str, route: str, deltas: int) -> Run:
    base = srv.openai_base if protocol == "openai" else srv.base_url
    config = Config.model_validate(
        {
            "provider": {
                "fake": {
                    "litellm_provider": protocol,
                    "options": {"api_base": base, "api_key": "bench", "agentls_route": route},
                    "models": {"m": {"limit": {"context": 200_000, "output": 8_192}}},
                }
            }
        }
    )
    model = resolve_model(config, "fake/m")
    request = LLMRequest(model=model, system=["bench"], messages=[{"role": "user", "content": "go"}])
    srv.script(Turn.text(_answer(deltas), chunks=deltas).usage(input=10, output=deltas))
    count = 0
    finished = False
    wall, cpu = time.perf_counter(), time.thread_time()
    async for event in stream(request, asyncio.Event()):
        if isinstance(event, TextDelta):
            count += 1
        elif isinstance(event, FinishStep):
            finished = True
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    assert finished and count == deltas, f"{route}: {count} deltas, finished={finished}"
    return Run(cpu, wall, count)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--routes", default=",".join(ROUTES))
    args = parser.parse_args()
    print(f"{args.deltas} deltas per answer, median of {args.runs} runs after one warm-up")
    print(f"{'route':<20}{'CPU µs/chunk':>14}{'chunks/s (CPU)':>16}{'chunks/s (wall)':>17}")
    with FakeModelServer.threaded() as srv:
        for name in args.routes.split(","):
            protocol, route = ROUTES[name]
            await _one(srv, protocol, route, min(args.deltas, 2_000))  # imports, connections, caches
            runs = [await _one(srv, protocol, route, args.deltas) for _ in range(args.runs)]
            cpu = statistics.median(r.cpu_s for r in runs)
            wall = statistics.median(r.wall_s for r in runs)
            per_chunk = cpu / args.deltas * 1e6
            print(f"{name:<20}{per_chunk:>14.1f}{args.deltas / cpu:>16,.0f}{args.deltas / wall:>17,.0f}")
    await aclose_http_client()


if __name__ == "__main__":
    asyncio.run(main())
