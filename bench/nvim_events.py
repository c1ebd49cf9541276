"""What one event of a running turn costs the Neovim chat view of a long session (issue #29).

A turn sends an event at every tool state, new part, step and token count; the chat view redraws the
block that changed. Measured in a headless Neovim with the plugin (no server: the events are applied
to the plugin's state directly, so the figure is the plugin's own): a session of ``--messages``
messages drawn whole, then tool state changes, message updates and new parts of its newest
message, milliseconds per event, medians over ``--runs`` fresh Neovims. ``--plugin`` measures
another copy of the plugin (say, a checkout of an older commit); the buffer's text is compared with
this checkout's, so both versions draw the same transcript.

    .venv/bin/python bench/nvim_events.py [--messages 1000] [--runs 5] [--plugin DIR]

Figures (2 shared cores, load 0.8-1.4, medians of 5, 1,000 messages = 7,500 lines; before = the
plugin at commit 495f7e2, where every such event walked the whole transcript's blocks; both drew
the same transcript):

    tool state     3.53 -> 0.033 ms per event
    message        3.27 -> 0.008 ms
    new part       3.46 -> 0.099 ms
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tools import ROOT, tool, tools_env

PROBE = Path(__file__).resolve().with_suffix(".lua")
FIGURES = ("tool_state_ms", "message_updated_ms", "new_part_ms")


def one(plugin: Path, messages: int, out: Path) -> dict[str, float]:
    env = {
        **tools_env(),
        "AGENTLS_BENCH_PLUGIN": str(plugin),
        "AGENTLS_BENCH_MESSAGES": str(messages),
        "AGENTLS_BENCH_OUT": str(out),
    }
    done = subprocess.run(
        [tool("nvim"), "--headless", "-u", "NONE", "-i", "NONE", "-l", str(PROBE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the probe failed:\n{done.stdout}\n{done.stderr}")
    return dict(json.loads(lines[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plugin", type=Path, default=ROOT / "editors" / "nvim")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        runs = [one(options.plugin, options.messages, tmp / "measured.txt") for _ in range(options.runs)]
        if options.plugin.resolve() != (ROOT / "editors" / "nvim").resolve():
            one(ROOT / "editors" / "nvim", options.messages, tmp / "ours.txt")
            same = (tmp / "measured.txt").read_text() == (tmp / "ours.txt").read_text()
            print(f"the same transcript as this checkout's plugin draws: {same}")
    lines = runs[0]["lines"]
    print(f"{options.messages} messages, {lines} lines; medians over {len(runs)} runs (ms per event):")
    for key in FIGURES:
        print(f"  {key}: {statistics.median(r[key] for r in runs):.3f}")


if __name__ == "__main__":
    main()
