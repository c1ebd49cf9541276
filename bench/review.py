"""Undoing one hunk through the real server: a 5,000-line file in which the agent changed 200
places (200 pending hunks), undone one hunk per ``agent/review/undo``, as a plugin client sees it.

Runs twice: the file closed in the editor (the server writes the disk) and open (the undo reaches
the buffer as a ``workspace/applyEdit`` that the client answers). Goal (issue 25): median ≤ 50 ms.
Also times ``agent/review/list`` of the 200 hunks, and one ``agent/review/undo`` of every hunk
still pending after those (Undo All: the hunks of one step are undone in one pass over the file).

    .venv/bin/python bench/review.py [--lines 5000] [--hunks 200] [--undos 30]
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
from tests.lsp.editor import PLUGIN, SERVER, start


def _texts(lines: int, hunks: int) -> tuple[str, str]:
    before = [f"value_{n} = compute({n})  # line {n}\n" for n in range(lines)]
    after = list(before)
    every = lines // hunks
    for n in range(0, every * hunks, every):
        after[n] = f"value_{n} = compute_faster({n})  # changed by the agent\n"
    return "".join(before), "".join(after)


async def run(tmp: Path, lines: int, hunks: int, undos: int, open_in_editor: bool) -> dict[str, Any]:
    root = tmp / ("open" if open_in_editor else "closed")
    root.mkdir()
    path = root / "big.py"
    before, after = _texts(lines, hunks)
    path.write_text(before)
    async with FakeModelServer() as model, FakeModelServer() as titles:
        titles.script(Turn.text("title"))
        model.script(
            Turn.tool_call("read", {"filePath": str(path)}),  # the write tool wants the file read first
            Turn.tool_call("write", {"filePath": str(path), "content": after}),
            Turn.text("done"),
        )
        options = {"config": {**agent_config(model, titles), "snapshot": True}}
        client, editor, _ = await start(
            SERVER, root, tmp / f"data-{root.name}", PLUGIN, options, ("agent/event",)
        )
        in_client: list[float] = []  # time the client spends applying the undo's edit
        apply = editor.apply

        def timed_apply(params: Any) -> Any:
            began = time.perf_counter()
            try:
                return apply(params)
            finally:
                in_client.append((time.perf_counter() - began) * 1000)

        editor.apply = timed_apply  # type: ignore[method-assign]
        editor.saves = True  # the editor saves what it applies (the git snapshots read the disk)
        if open_in_editor:
            editor.open(path, before)
        call = client.protocol.send_request_async
        session = await call("agent/session/create", {"title": "bench"})
        sid = session["id"]
        await call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
        began = time.perf_counter()
        listed = (await call("agent/review/list", {"sessionID": sid}))["hunks"]
        list_ms = (time.perf_counter() - began) * 1000
        assert len(listed) == hunks, f"expected {hunks} hunks, got {len(listed)}"
        times, client_ms = [], []
        for hunk in listed[:undos]:
            in_client.clear()
            began = time.perf_counter()
            result = await call("agent/review/undo", {"sessionID": sid, "hunkIDs": [hunk["id"]]})
            times.append((time.perf_counter() - began) * 1000)
            client_ms.append(sum(in_client))
            assert len(result["changed"]) == 1 and not result["conflicts"], result
        began = time.perf_counter()
        result = await call("agent/review/undo", {"sessionID": sid})
        undo_all_ms = (time.perf_counter() - began) * 1000
        assert len(result["changed"]) == hunks - len(times) and not result["conflicts"], result
        assert path.read_text() == before, "Undo All did not bring the file back"
        await client.shutdown_session()
        await client.stop()
    return {"list_ms": list_ms, "undo_ms": times, "client_ms": client_ms, "undo_all_ms": undo_all_ms}


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--hunks", type=int, default=200)
    parser.add_argument("--undos", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for open_in_editor in (False, True):
            out = await run(Path(tmp), args.lines, args.hunks, args.undos, open_in_editor)
            undo = out["undo_ms"]
            where = "open in the editor" if open_in_editor else "closed (disk)"
            spread = f"min {min(undo):.1f}, max {max(undo):.1f}, n={len(undo)}"
            print(
                f"{args.lines} lines, {args.hunks} hunks, file {where}: undo one hunk median "
                f"{statistics.median(undo):.1f} ms ({spread}), of which the client applying the edit "
                f"{statistics.median(out['client_ms']):.1f} ms; list {out['list_ms']:.1f} ms; "
                f"Undo All of the other {args.hunks - len(undo)} hunks {out['undo_all_ms']:.1f} ms"
            )


if __name__ == "__main__":
    asyncio.run(main())
