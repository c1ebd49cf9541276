"""A long streamed answer into the Neovim chat buffer: coalescing, the longest main-loop block, CPU.

Two modes, each run ``--runs`` times in a fresh headless Neovim 0.11 with the plugin:

- ``server``: the real ``agentls serve`` and the fake model streaming ``--deltas`` text deltas as
  fast as it can (the server may merge deltas under load: the count Neovim received is reported);
- ``local``: the same number of delta events fed into the plugin's state in bursts of 50 per
  millisecond, to isolate the plugin's own cost.

Reported per mode (medians): buffer writes (coalesced, ~one per 16 ms, fewer when writing and
drawing get slow: agentls.chat.pacing), the longest block of Neovim's main loop measured as the lateness of
a 5 ms repeating timer (goal ≤ 50 ms) with the CPU Neovim used during it (on shared cores lateness
without CPU is the process waiting for a core, not the plugin), the most CPU used between two ticks
(``worst_tick_cpu``: the longest block of work, whatever the machine's load), whether the chat's
highlighting was paused for slow draws, CPU seconds of the Neovim process during the answer, wall
time; in server mode also the longest block while the session's history is reloaded and drawn. The
probe redraws on each tick, as a Neovim with a UI does after every write (``AGENTLS_BENCH_REDRAW=0``:
no redraw but Neovim's own).

    .venv/bin/python bench/nvim_stream.py [--deltas 20000] [--runs 5]

Figures (2 shared cores at load 3-5, medians of 3; before = the plugin before commit 9e8a5e0):

    REDRAW=0  server: worst block 61.1 ms (cpu 60.1) -> 46.7 ms (cpu 46.2); local: 4.3 -> 1.3 ms
    redraw    server: 107 ms (cpu 9) -> 130 ms (cpu 23), Neovim cpu 1.04 -> 0.81 s
              local:  185 ms (cpu 77) -> 156 ms (cpu 72), Neovim cpu 0.41 -> 0.44 s
    What is left is Vim's markdown syntax redrawing the streamed paragraph after each write (the
    server's text is one 100 KB line: ~17 ms a redraw); tree-sitter's markdown parser was tried and
    is worse here (it reparses the growing answer: 60-120 ms of CPU per edit at 100 KB).

Pacing and following the end of the text (with redraw, medians of 5, load 7.5-8.9 on the 2 cores,
so the lateness figures are mostly waiting for a core; before = the plugin at commit 86d4c5e):

    server: worst tick cpu 30.0 -> 18.0 ms, worst block 156 -> 110 ms (cpu in it 20 -> 10),
            blocks > 50 ms 16 -> 5, writes 54 -> 36, Neovim cpu 0.8 -> 0.3 s, reload 47 -> 14 ms
    local:  worst tick cpu 24.5 -> 24.4 ms, worst block 151 -> 47 ms, blocks > 50 ms 2 -> 0,
            Neovim cpu 0.3 -> 0.1 s
    The cost per draw was the markdown syntax re-reading the changed paragraph with each of its ~40
    patterns to find the state of the line after it (the follower's cursor sat on the blank line
    ending the block, which also scrolled a paragraph taller than the window out of sight); with
    the cursor at the end of the text a draw of the 100 KB line costs ~5 ms, and the write itself
    ~10-15 ms (placing the cursor at the end of a 100 KB line lays it out again: 'linebreak' makes
    that ~6x dearer). In local mode one slow draw happens before highlighting pauses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.nvim.harness import Nvim

BENCH = Path(__file__).resolve().parent / "nvim_stream.lua"


def one(mode: str, deltas: int) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeModelServer.threaded() as model,
        FakeModelServer.threaded() as titles,
    ):
        titles.script(*[Turn.text("A title") for _ in range(5)])
        model.script(Turn.text("word " * deltas, chunks=deltas))
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        nvim = Nvim(home, project, model, titles, {})
        run = nvim.run(
            str(BENCH), timeout=600, AGENTLS_BENCH_MODE=mode, AGENTLS_BENCH_DELTAS=str(deltas)
        ).check()
        # Neovim's own messages may share the line (they end without a newline).
        line = [x for x in (run.stdout + run.stderr).splitlines() if '{"' in x][-1]
        return dict(json.loads(line[line.index('{"') :]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for mode in ("local", "server"):
        results = [one(mode, args.deltas) for _ in range(args.runs)]
        med = {key: statistics.median(r[key] for r in results) for key in results[0] if key != "mode"}
        print(
            f"{mode:6} deltas={args.deltas} received={med['deltas_received']:.0f} writes={med['writes']:.0f} "
            f"worst_block={med['worst_block_ms']:.1f}ms (cpu {med['worst_block_cpu_ms']:.1f}ms) "
            f"worst_tick_cpu={med['worst_tick_cpu_ms']:.1f}ms paused={med.get('paused', 0):.0f} "
            f"blocks>50ms={med['blocks_over_50ms']:.0f} "
            f"cpu={med['cpu_s']:.2f}s wall={med['wall_s']:.2f}s "
            f"lines={med['lines']:.0f} (medians of {args.runs})"
        )
        if "reload_block_ms" in med:
            reload = (
                f"worst_block={med['reload_block_ms']:.1f}ms "
                f"worst_tick_cpu={med['reload_tick_cpu_ms']:.1f}ms wall={med['reload_wall_s']:.2f}s"
            )
            print(f"{mode:6} history reload: {reload}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
