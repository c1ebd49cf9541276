"""Opening the review list of 200 pending hunks in Neovim: how long the main loop is blocked.

A real headless Neovim with the plugin and the real ``agentls serve``; the fake model rewrites a
5,000-line file with 200 changed lines in one step (200 hunks). Then, with a 5 ms timer measuring
how late the loop lets it run: ``:AgentlsReview list`` (the server's list, the 200 signs in the
file's buffer, the quickfix list) and the ``:AgentlsReview`` menu. Goal (issue 25): no block over
50 ms. Reported: medians of ``--runs``.

    .venv/bin/python bench/nvim_review.py [--runs 3]

Figures (2 shared cores, medians of 3): the list shown in 30 ms, worst block 13 ms; the menu
asked in 26 ms, worst block 6 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.nvim.harness import Nvim

SCRIPT = Path(__file__).resolve().parent / "nvim_review.lua"


def one() -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeModelServer.threaded() as model,
        FakeModelServer.threaded() as titles,
    ):
        titles.script(*[Turn.text("A title") for _ in range(5)])
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        big = project / "big.py"
        lines = [f"x{i} = {i}\n" for i in range(5000)]
        big.write_text("".join(lines))
        changed = [f"x{i} = {i} + 1\n" if i % 25 == 12 else line for i, line in enumerate(lines)]
        model.script(
            Turn.tool_call("write", {"filePath": str(big), "content": "".join(changed)}), Turn.text("Done.")
        )
        out = home / "bench.json"
        nvim = Nvim(home, project, model, titles, {"permission": {"edit": "allow", "read": "allow"}})
        run = nvim.run(str(SCRIPT), timeout=180, BENCH_OUT=str(out)).check()
        if not out.exists():
            raise SystemExit(run.stderr)
        result: dict[str, float] = json.loads(out.read_text())
        return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = [one() for _ in range(args.runs)]
    med = {key: statistics.median(r[key] for r in results) for key in results[0]}
    print(
        f"200 hunks: :AgentlsReview list shown in {med['list_ms']:.1f} ms, worst block "
        f"{med['list_block_ms']:.1f} ms; menu asked in {med['menu_ms']:.1f} ms, worst block "
        f"{med['menu_block_ms']:.1f} ms (medians of {args.runs})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
