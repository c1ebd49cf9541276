"""The LSP server as an editor sees it: startup, prompt latency, streaming throughput.

- time from process start to the ``initialize`` answer (cold start; the agent loads afterwards);
- time from ``agent/session/prompt`` to the model receiving its request, on a warm server (agent
  open), for the first prompt of the process and the next ones;
- text deltas per second as a plugin client receives them (``agent/event`` notifications), from a
  fake model streaming as fast as it can.

    .venv/bin/python bench/lsp.py [--starts 5] [--prompts 5] [--deltas 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import agent_config
from tests.lsp.editor import PLUGIN, REPO, SERVER, initialize, make_client, server_env, start


async def time_to_initialize(tmp: Path, root: Path) -> float:
    """Seconds from spawning ``python -m lsp_server`` to the initialize answer."""
    began = time.perf_counter()
    client, _, _ = await start(SERVER, root, tmp / "data", PLUGIN, notifications=("agent/event",))
    elapsed = time.perf_counter() - began
    await client.shutdown_session()
    await client.stop()
    return elapsed


async def prompt_latencies(tmp: Path, root: Path, prompts: int) -> list[float]:
    """Seconds from sending a prompt to the model's request, prompt after prompt on one server."""
    async with FakeModelServer() as model, FakeModelServer() as titles:
        titles.script(*[Turn.text("title") for _ in range(prompts)])
        options = {"config": agent_config(model, titles)}
        client, _, _ = await start(SERVER, root, tmp / "data", PLUGIN, options, ("agent/event",))
        await client.protocol.send_request_async("agent/config", {})  # warm: the agent is open
        session = await client.protocol.send_request_async("agent/session/create", {"title": "bench"})
        out = []
        for index in range(prompts):
            model.script(Turn.text("ok"))
            params = {"sessionID": session["id"], "parts": [{"type": "text", "text": f"prompt {index}"}]}
            began = time.perf_counter()
            answer = asyncio.ensure_future(client.protocol.send_request_async("agent/session/prompt", params))
            await model.wait_for_requests(index + 1, timeout=60)
            out.append(time.perf_counter() - began)
            await answer
        await client.shutdown_session()
        await client.stop()
    return out


async def delta_rate(tmp: Path, root: Path, deltas: int) -> dict[str, Any]:
    """Deltas the model sent, notifications the client got, and the rates over the stream's span."""
    text = "".join(f"w{i} " for i in range(deltas))
    async with FakeModelServer() as model, FakeModelServer() as titles:
        titles.script(Turn.text("title"))
        model.script(Turn.text(text, chunks=deltas))
        client, editor = make_client(("agent/event",))
        stamps: list[tuple[float, int]] = []
        original = editor.record

        def record(method: str, params: Any) -> None:
            if params.get("type") == "message.part.delta":
                stamps.append((time.perf_counter(), len(params["properties"]["delta"])))
            original(method, params)

        editor.record = record  # type: ignore[method-assign]
        await client.start_io(*SERVER, env=server_env(tmp / "data"), cwd=str(REPO))
        await initialize(client, root, PLUGIN, {"config": agent_config(model, titles)})
        session = await client.protocol.send_request_async("agent/session/create", {})
        params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "stream"}]}
        await client.protocol.send_request_async("agent/session/prompt", params)
        await client.shutdown_session()
        await client.stop()
    span = stamps[-1][0] - stamps[0][0] if len(stamps) > 1 else float("nan")
    chars = sum(n for _, n in stamps)
    return {
        "sent": deltas,
        "received": len(stamps),
        "chars_ok": chars == len(text),
        "notifications_per_s": len(stamps) / span,
        "model_deltas_per_s": deltas / span,
        "chars_per_s": chars / span,
    }


def _summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):.0f} ms, min {ms[0]:.0f}, max {ms[-1]:.0f} (n={len(ms)})"


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        root = tmp / "project"
        root.mkdir()
        (root / "a.py").write_text("print('a')\n")
        starts = [await time_to_initialize(tmp, root) for _ in range(args.starts)]
        print(f"process start → initialize answer: {_summary(starts)}")
        latencies = await prompt_latencies(tmp, root, args.prompts)
        print(f"prompt → model request, first prompt of the process: {latencies[0] * 1000:.0f} ms")
        if len(latencies) > 1:
            print(f"prompt → model request, later prompts: {_summary(latencies[1:])}")
        rate = await delta_rate(tmp, root, args.deltas)
        print(
            f"streaming: {rate['sent']} model deltas → {rate['received']} notifications "
            f"(text intact: {rate['chars_ok']}); {rate['model_deltas_per_s']:.0f} model deltas/s, "
            f"{rate['notifications_per_s']:.0f} notifications/s, {rate['chars_per_s'] / 1000:.0f} k chars/s"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=5)
    parser.add_argument("--deltas", type=int, default=5000)
    asyncio.run(main(parser.parse_args()))
