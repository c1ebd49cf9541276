"""The VS Code extension in a real VS Code (code-server + headless Chromium), with the real server.

- a 3,000-line Markdown answer (paragraphs, lists, code blocks, tables) streamed into the chat view,
  one delta per line: the view's lag while it streams — the gaps between the webview's animation
  frames (p50, p99, longest; goal: p99 ≤ 50 ms), its draws, and with ``--trace`` each renderer main
  thread's own CPU time per frame (p99, longest, frames over 50 ms) from a Chromium trace, as
  bench/vscode_open.py does — and the extension host's CPU time per 1,000 deltas;
- activation → server initialized, and "Focus Chat" → view ready (state loaded from the server).

    .venv/bin/python bench/vscode_stream.py [--runs 3] [--lines 3000] [--trace] [--base REV]

Each run starts a fresh code-server; medians over the runs are printed, with the load average (1 min)
after each run. ``--base REV`` builds the extension of another revision too (from ``git archive``)
and alternates runs of it and of this checkout, so both see the same load; the server is this
checkout's either way.

Measured on the shared 2-core VM (2026-12-07, ``--runs 3 --trace --base 7af689e``, load 21-25 from
seven other sessions): the webview's main thread never spent over 26 ms of CPU on a frame (p99 of
the frames' CPU, median of runs: 22.7 ms main, 21.6 ms this checkout; no frame over 50 ms), while
the wall-clock gap between frames reached p99 233 / 167 ms (median; 117-317 ms per run, either
build). The lag a user sees at this load is the machine's, not the view's work: every delta batch
is drawn in one frame of ~20 ms of CPU (the stable Markdown rendered once, only the tail again).
With ~60-120 frames per run, p99 is the longest frame but one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server

AGENTLS = ROOT / ".venv" / "bin" / "agentls"
KEYS = (
    "p99FrameGapMs",
    "p50FrameGapMs",
    "maxFrameGapMs",
    "p99FrameCpuMs",
    "maxFrameCpuMs",
    "framesCpuOver50",
    "tracedFrames",
    "animationFrames",
    "maxDrawMs",
    "meanDrawMs",
    "hostCpuMsPer1000Deltas",
    "streamMs",
    "draws",
    "eventsReceived",
    "activationToInitializedMs",
    "focusToViewReadyMs",
    "load",
)


def answer(lines: int) -> list[str]:
    """A Markdown answer of ``lines`` lines: paragraphs, a list, a code block and a table in turn."""
    out: list[str] = []
    i = 0
    while len(out) < lines:
        block = i % 4
        if block == 0:
            out += [f"Paragraph {i}, line {k}: some **bold** words and `code`." for k in range(8)]
        elif block == 1:
            out += [f"- item {i}.{k} with a [link](https://example.com/{k}) and text" for k in range(6)]
        elif block == 2:
            code = [f"def f{i}_{k}(x):  # line {k}\n    return x + {k}" for k in range(4)]
            out += ["```python", *code, "```"]
        else:
            out += ["| name | value | note |", "| --- | --- | --- |"]
            out += [f"| row {i}.{k} | {k * 7} | text {k} |" for k in range(5)]
        out.append("")
        i += 1
    return [line + "\n" for line in "\n".join(out).split("\n")[:lines]]


def one_run(tmp: Path, package: Path, lines: int, trace: bool) -> dict[str, Any]:
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("bench\n")
    trace_file = tmp / "trace.jsonl"
    text = answer(lines)
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(Turn.text("".join(text), chunks=len(text)))
        titles.script(Turn.text("Bench"))
        settings = {"agentls.server.path": str(AGENTLS), "agentls.config": fake_model_config(main, titles)}
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "config"),
            "AGENTLS_VSCODE_TRACE": str(trace_file),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            args = {
                "url": cs.url,
                "folder": str(folder),
                "shots": str(tmp / "shots"),
                "trace": str(trace_file),
                "chromeTrace": trace,
            }
            done = subprocess.run(
                [tool("node"), str(Path(__file__).with_suffix(".mjs")), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
    lines_out = done.stdout.splitlines()
    result: dict[str, Any] = next((json.loads(x[7:]) for x in lines_out if x.startswith("RESULT ")), {})
    if not result.get("ok"):
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    result["hostCpuMsPer1000Deltas"] = result["hostCpuMs"] / (len(text) / 1000)
    result["load"] = os.getloadavg()[0]
    return result


@contextmanager
def base_vsix(rev: str) -> Iterator[Path]:
    """The extension of revision ``rev``, built from its files (``git archive``) as tests/vscode/build.py
    does."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "base"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        code = "from tests.vscode.build import vsix; print(vsix())"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"building the extension of {rev} failed:\n{done.stdout}\n{done.stderr}")
        yield Path(done.stdout.strip().splitlines()[-1])


def report(name: str, runs: list[dict[str, Any]], lines: int) -> None:
    print(f"{name}: medians over {len(runs)} runs of a {lines}-line answer:")
    for key in KEYS:
        values = [float(r[key]) for r in runs if r.get(key) is not None]
        print(f"  {key}: {statistics.median(values):.1f}" if values else f"  {key}: -")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--trace", action="store_true", help="also each frame's main-thread CPU time")
    parser.add_argument("--base", metavar="REV", help="alternate runs with the extension of REV")
    options = parser.parse_args()
    packages = {"this checkout": vsix()}
    with base_vsix(options.base) if options.base else _nothing() as base:
        if base is not None:
            packages = {f"base {options.base}": base, **packages}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in packages}
        for i in range(options.runs):
            for name, package in packages.items():
                with tempfile.TemporaryDirectory() as tmp:
                    result = one_run(Path(tmp), package, options.lines, options.trace)
                shown = {k: round(float(result[k]), 1) for k in KEYS if result.get(k) is not None}
                print(f"run {i + 1} ({name}): " + json.dumps(shown), flush=True)
                runs[name].append(result)
    for name, results in runs.items():
        report(name, results, options.lines)


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    main()
