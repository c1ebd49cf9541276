"""The VS Code extension in a real VS Code (code-server + headless Chromium), with the real server.

- a 20,000-delta answer streamed into the chat view: the longest gap between the webview's animation
  frames and its longest draw (goal: no frame over 50 ms; deltas are applied as they arrive and drawn
  once per animation frame), and the extension host's CPU time per 1,000 deltas;
- activation → server initialized, and "Focus Chat" → view ready (state loaded from the server).

    .venv/bin/python bench/vscode_stream.py [--runs 3] [--deltas 20000]

Each run starts a fresh code-server; medians over the runs are printed.
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

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server

AGENTLS = ROOT / ".venv" / "bin" / "agentls"


def answer(deltas: int) -> str:
    """A Markdown answer of ``deltas`` words (one delta each), with paragraphs and code blocks."""
    words = []
    for i in range(deltas):
        words.append(f"word{i} ")
        if i % 60 == 59:
            words.append("\n\n")
        if i % 600 == 599:
            words.append("\n```python\ndef f(x):\n    return x + 1\n```\n\n")
    return "".join(words)


def one_run(tmp: Path, deltas: int) -> dict[str, float]:
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("bench\n")
    trace = tmp / "trace.jsonl"
    text = answer(deltas)
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(Turn.text(text, chunks=deltas))
        titles.script(Turn.text("Bench"))
        settings = {"agentls.server.path": str(AGENTLS), "agentls.config": fake_model_config(main, titles)}
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        with code_server(tmp / "vscode", vsix(), settings, env) as cs:
            args = {"url": cs.url, "folder": str(folder), "shots": str(tmp / "shots"), "trace": str(trace)}
            done = subprocess.run(
                [tool("node"), str(Path(__file__).with_suffix(".mjs")), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
    result = next((json.loads(x[7:]) for x in done.stdout.splitlines() if x.startswith("RESULT ")), {})
    if not result.get("ok"):
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    result["hostCpuMsPer1000Deltas"] = result["hostCpuMs"] / (deltas / 1000)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--deltas", type=int, default=20_000)
    options = parser.parse_args()
    runs = []
    for i in range(options.runs):
        with tempfile.TemporaryDirectory() as tmp:
            result = one_run(Path(tmp), options.deltas)
        print(f"run {i + 1}: " + json.dumps({k: v for k, v in result.items() if k not in ("ok",)}))
        runs.append(result)
    keys = [
        "maxFrameGapMs",
        "maxDrawMs",
        "meanDrawMs",
        "hostCpuMsPer1000Deltas",
        "streamMs",
        "draws",
        "eventsReceived",
        "activationToInitializedMs",
        "focusToViewReadyMs",
    ]
    print(f"medians over {len(runs)} runs of a {options.deltas}-delta answer:")
    for key in keys:
        print(f"  {key}: {statistics.median(float(r[key]) for r in runs):.1f}")


if __name__ == "__main__":
    main()
