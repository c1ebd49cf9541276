"""Next edits through the real server (issue #41): how long ``textDocument/inlineCompletion``
takes to answer while the small model is slow, and what the feature costs when it is off.

On: the agent renames a parameter in util.py; main.py, open in the editor, calls the function at
``--sites`` lines. The small model answers the first site at once, then hangs (a model that is
slow to answer): the server must answer every request within 50 ms from its cache (the ready
site: ``hit``) or with nothing (a site whose edit is not ready: ``miss``). Off: the same session
with ``nextEdits`` unset: no ``inlineCompletionProvider`` is announced, the requests a client sends
anyway answer empty, and the small model receives no request. Closed files: ``--closed`` files no
editor shows call the function too; the client answers the server's ``references`` editor query with
every call (as VS Code and the Neovim plugin do): how long after the agent's turn the first edit in
a closed file is ready (the 0.3 s quiet time, the query, the files read, the model's instant answer),
while the inline completions keep answering from the cache.

    .venv/bin/python bench/next_edits.py [--sites 200] [--requests 300] [--closed 500]
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

from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import agent_config
from tests.lsp.editor import PLUGIN, SERVER, start, uri

READY = "agent/nextEdit/ready"
UTIL = "def scale(value, factor):\n    return value * factor\n"
RENAMED = "def scale(amount, factor):\n    return amount * factor\n"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(tmp: Path, on: bool, sites: int, requests: int) -> dict[str, Any]:
    root = tmp / ("on" if on else "off")
    root.mkdir()
    util, main = root / "util.py", root / "main.py"
    util.write_text(UTIL)
    text = "from util import scale\n" + "".join(f"x{n} = scale(value={n}, factor=2)\n" for n in range(sites))
    main.write_text(text)
    hang = asyncio.Event()  # the small model's answers after the first: never, until the end
    async with FakeModelServer() as model, FakeModelServer() as small:
        small.script(
            Turn.text("x0 = scale(amount=0, factor=2)"),
            *[Turn.text("late").slow_first_byte(hang) for _ in range(20)],
        )
        model.script(
            Turn.tool_call("edit", {"filePath": str(util), "oldString": UTIL, "newString": RENAMED}),
            Turn.text("Renamed."),
        )
        options: dict[str, Any] = {"config": agent_config(model, small)}
        if on:
            options["nextEdits"] = True
        client, editor, result = await start(
            SERVER, root, tmp / f"data-{root.name}", PLUGIN, options, ("agent/event", READY)
        )
        editor.saves = True
        editor.open(main, text)
        call = client.protocol.send_request_async
        sid = (await call("agent/session/create", {"title": "bench"}))["id"]
        await call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
        if on:
            await editor.wait_for(lambda: editor.notifications.get(READY), timeout=60)
        hit: list[float] = []
        miss: list[float] = []
        answers = {"hit": 0, "miss": 0}
        for n in range(requests):
            line = 1 if n % 2 == 0 else 2 + (n % (sites - 1))  # line 1: x0 (the ready site)
            params = lsp.InlineCompletionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri(main)),
                position=lsp.Position(line=line, character=4),
                context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Automatic),
            )
            began = time.perf_counter()
            found = await client.text_document_inline_completion_async(params)
            elapsed = (time.perf_counter() - began) * 1000
            kind = "hit" if line == 1 else "miss"
            (hit if kind == "hit" else miss).append(elapsed)
            answers[kind] += 1 if found is not None and found.items else 0
        asked = len(small.requests)
        hang.set()
        await client.shutdown_session()
        await client.stop()
    announced = result.capabilities.inline_completion_provider is not None
    return {"hit": hit, "miss": miss, "answers": answers, "asked": asked, "announced": announced}


async def closed_run(tmp: Path, files: int) -> dict[str, Any]:
    """The agent's rename with ``files`` closed callers named by the editor's references."""
    root = tmp / "closed"
    root.mkdir()
    util, main = root / "util.py", root / "main.py"
    util.write_text(UTIL)
    main.write_text("from util import scale\nx = scale(value=1, factor=2)\n")
    callers = [root / f"mod{n}.py" for n in range(files)]
    for path in callers:
        path.write_text("from util import scale\n\ny = scale(value=1, factor=2)\n")
    async with FakeModelServer() as model, FakeModelServer() as small:
        small.script_for("Line to rewrite:\nx = scale", Turn.text("x = scale(amount=1, factor=2)"))
        small.script_for("Line to rewrite:\ny = scale", *[Turn.text("y = scale(amount=1, factor=2)")] * 20)
        model.script(
            Turn.tool_call("edit", {"filePath": str(util), "oldString": UTIL, "newString": RENAMED}),
            Turn.text("Renamed."),
        )
        options: dict[str, Any] = {"config": agent_config(model, small), "nextEdits": True}
        profile = f"{PLUGIN}+editor:references"
        client, editor, _ = await start(
            SERVER, root, tmp / "data-closed", profile, options, ("agent/event", READY)
        )
        editor.saves = True

        async def references(params: Any) -> Any:
            pos = {"line": 2, "character": 4}
            return [{"uri": uri(p), "range": {"start": pos, "end": pos}} for p in callers]

        client.feature("agent/editorQuery")(references)
        editor.open(main, main.read_text())
        call = client.protocol.send_request_async
        sid = (await call("agent/session/create", {"title": "bench"}))["id"]
        await call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
        ended = time.perf_counter()
        closed = {uri(p) for p in callers}

        def first_closed() -> bool:
            return any(r["uri"] in closed for r in editor.notifications.get(READY, []))

        await editor.wait_for(first_closed, timeout=120)
        first = (time.perf_counter() - ended) * 1000
        timings: list[float] = []
        for _ in range(100):
            params = lsp.InlineCompletionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri(main)),
                position=lsp.Position(line=1, character=4),
                context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Automatic),
            )
            began = time.perf_counter()
            await client.text_document_inline_completion_async(params)
            timings.append((time.perf_counter() - began) * 1000)
        asked = len(small.requests)
        await client.shutdown_session()
        await client.stop()
    return {"first": first, "inline": timings, "asked": asked}


def _line(name: str, values: list[float]) -> str:
    return (
        f"{name} p50 {statistics.median(values):.1f} ms, p99 {_percentile(values, 0.99):.1f} ms, "
        f"max {max(values):.1f} ms (n={len(values)})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sites", type=int, default=200)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--closed", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for on in (True, False):
            out = await run(Path(tmp), on, args.sites, args.requests)
            print(
                f"nextEdits {'on' if on else 'off'}: inlineCompletionProvider announced: {out['announced']}; "
                f"small-model requests: {out['asked']}; non-empty answers {out['answers']}"
            )
            print("  " + _line("ready site (cache)", out["hit"]))
            print("  " + _line("site not ready (empty)", out["miss"]))
        if args.closed:
            got = await closed_run(Path(tmp), args.closed)
            print(
                f"{args.closed} closed callers named by the editor's references: the first edit in a closed "
                f"file ready {got['first']:.0f} ms after the turn (0.3 s of it the quiet time); "
                f"small-model requests: {got['asked']}"
            )
            print("  " + _line("inlineCompletion (cache) afterwards", got["inline"]))


if __name__ == "__main__":
    asyncio.run(main())
