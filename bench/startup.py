"""Start-up and exit as a user feels them, timed from outside the process (issue #14).

- ``agentls run`` of a one-turn answer: whole-process wall, start → first model request, the model's
  last byte → process exit, peak RSS;
- ``agentls serve``: spawn → ``initialize`` answered, ``initialized`` → the agent loaded in the
  background (an ``agent/config`` sent right after ``initialized`` is answered once it is), the
  background load itself as the server logs it (without pygls' own import, which finishes after
  the early ``initialize`` answer), the first prompt → model request once loaded, ``exit`` →
  process gone;
- ``agentls acp``: spawn → ``initialize`` answered;
- ``agentls run`` in a git project of 20,000 files with snapshots on (the default outside this
  bench's other scenarios): git's snapshot of the files is part of every step there;
- for comparison: ``python -m lsp_server`` → ``initialize`` answered, and ``opencode run`` against
  the same fake model when ``opencode`` is on PATH, in both projects.

Every figure is the median over ``--runs`` fresh processes (plus one unmeasured warm-up that
creates the database). The console script is the installed one beside this Python.

    .venv/bin/python bench/startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.startup_wire import StampedModel, StdioClient
from demo.config import fake_model_config
from demo.fake_script import Turn

REPO = Path(__file__).resolve().parents[1]
ANSWER = "hello from the fake model"


@dataclass
class Figures:
    """Samples by figure name, in seconds (RSS in MiB)."""

    samples: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value: float) -> None:
        self.samples.setdefault(name, []).append(value)

    def median(self, name: str) -> float:
        return statistics.median(self.samples[name])


@dataclass
class Bench:
    tmp: Path
    model: StampedModel
    titles: StampedModel

    @property
    def root(self) -> Path:
        return self.tmp / "project"

    @property
    def git_root(self) -> Path:
        return self.tmp / "git-project"

    def env(self, **config: Any) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("AGENTLS_CONFIG", "AGENTLS_PERMISSION", "PYTHONPATH"):
            env.pop(name, None)
        env.update(
            AGENTLS_DATA_DIR=str(self.tmp / "data"),
            AGENTLS_CACHE_DIR=str(self.tmp / "cache"),
            AGENTLS_CONFIG_DIR=str(self.tmp / "config"),
            HOME=str(self.tmp / "home"),
            AGENTLS_CONFIG_CONTENT=json.dumps({**self.config(), **config}),
        )
        return env

    def config(self) -> dict[str, Any]:
        return fake_model_config(self.model, self.titles)

    def script(self) -> None:
        self.model.script(Turn.text(ANSWER, chunks=5))
        self.titles.script(Turn.text("A title"))


def agentls() -> str:
    """The installed console script of this environment (or $AGENTLS_BENCH_SCRIPT, to compare builds)."""
    if override := os.environ.get("AGENTLS_BENCH_SCRIPT"):
        return override
    beside = Path(sys.executable).parent / "agentls"
    found = str(beside) if beside.exists() else shutil.which("agentls")
    if found is None:
        sys.exit("no agentls console script: run ./scripts/setup")
    return found


def wait_exit(proc: subprocess.Popen[bytes]) -> tuple[float, float, float]:
    """Wait for the child: (perf_counter stamp of its exit, its peak RSS in MiB, its CPU seconds)."""
    _, status, usage = os.wait4(proc.pid, 0)
    stamp = time.perf_counter()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return stamp, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


GIT_FILES = 20_000


def make_git_project(root: Path) -> None:
    """A committed git project of GIT_FILES small Python files, 200 to a directory."""
    for n in range(GIT_FILES):
        folder = root / f"pkg{n // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n % 200:03d}.py").write_text(f"def f{n}(x):\n    return x * {n}\n" * (1 + n % 40))
    git = ["git", "-c", "user.email=bench@agentls.invalid", "-c", "user.name=bench"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench project"]):
        subprocess.run([*git, *args], cwd=root, check=True, stdout=subprocess.DEVNULL)


def one_run(bench: Bench, figures: Figures | None, *, git: bool = False) -> None:
    """``agentls run "hi" --yes``: one turn, answered by the fake model (in the git project with
    snapshots on when ``git``)."""
    bench.script()
    seen = len(bench.model.arrived)
    out = bench.tmp / "run.out"
    root, env, name = (
        (bench.git_root, bench.env(snapshot=True), "run in git") if git else (bench.root, bench.env(), "run")
    )
    with out.open("wb") as stdout:
        began = time.perf_counter()
        proc = subprocess.Popen(
            [agentls(), "run", "say hello", "--yes", "-C", str(root)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
        )
        exited, rss, cpu = wait_exit(proc)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0 or ANSWER not in out.read_text():
        sys.exit(f"agentls run failed ({proc.returncode}):\n{out.read_text()}\n{stderr}")
    if figures is not None:
        figures.add(f"{name}: whole process", exited - began)
        figures.add(f"{name}: start → first model request", bench.model.arrived[seen] - began)
        figures.add(f"{name}: model's last byte → exit", exited - bench.model.answered[seen])
        if not git:
            figures.add("run: peak RSS (MiB)", rss)
        # CPU time barely moves when other work shares the machine; the wall clocks above do.
        figures.add(f"{name}: CPU time, user + sys", cpu)


def initialize_params(bench: Bench) -> dict[str, Any]:
    uri = bench.root.as_uri()
    return {
        "processId": os.getpid(),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": bench.root.name}],
        "capabilities": {
            "workspace": {"applyEdit": True},
            "experimental": {"agent": {"version": 1, "savesEdits": True}},
        },
        "initializationOptions": {"config": bench.config()},
    }


def one_serve(bench: Bench, figures: Figures | None, command: list[str], name: str) -> None:
    """Spawn, initialize, wait for the background load, one prompt, shutdown and exit."""
    env = bench.env()
    env.pop("AGENTLS_CONFIG_CONTENT")  # the editor passes the config in initializationOptions
    log = bench.tmp / "serve.log"
    log.unlink(missing_ok=True)
    command = [*command, "--log-file", str(log), "--log-level", "INFO"]
    began = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=bench.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    client = StdioClient(proc)
    answered, _ = client.call("initialize", initialize_params(bench))
    if figures is not None:
        figures.add(f"{name}: spawn → initialize answered", answered - began)
    if name != "serve":
        client.call("shutdown", None)
        client.notify("exit", None)
        wait_exit(proc)
        return
    client.notify("initialized", {})
    sent = time.perf_counter()
    loaded, _ = client.call("agent/config", {})
    session = client.call("agent/session/create", {"title": "bench"})[1]
    bench.script()
    seen = len(bench.model.arrived)
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "say hello"}]}
    asked = time.perf_counter()
    answer = client.request("agent/session/prompt", params)
    reached = bench.model.wait_arrived(seen + 1, timeout=60)
    answer.get(timeout=60)
    client.call("shutdown", None)
    leaving = time.perf_counter()
    client.notify("exit", None)
    exited, _, _ = wait_exit(proc)
    if figures is not None:
        figures.add("serve: initialized → agent loaded", loaded - sent)
        # The sum: answering initialize early moves the server's own imports after it.
        figures.add("serve: spawn → agent loaded", loaded - began)
        # The agent's own load (open the store, config, warm-up), as the server logs it: the rest of
        # "initialized → agent loaded" is pygls finishing its import, moved after the early answer.
        if found := re.search(r"agent ready in .* after (\d+) ms", log.read_text()):
            figures.add("serve: background load itself (server log)", int(found[1]) / 1000)
        figures.add("serve: first prompt → model request", reached - asked)
        figures.add("serve: exit → process gone", exited - leaving)


def one_acp(bench: Bench, figures: Figures | None) -> None:
    """``agentls acp``: spawn → the ``initialize`` answer (newline-delimited JSON-RPC), then EOF."""
    request = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
    env = bench.env()
    env.pop("AGENTLS_CONFIG_CONTENT")
    began = time.perf_counter()
    proc = subprocess.Popen(
        [agentls(), "acp"], env=env, cwd=bench.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(request).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    answered = time.perf_counter()
    proc.stdin.close()
    wait_exit(proc)
    if "result" not in answer:
        sys.exit(f"agentls acp did not answer initialize: {answer}")
    if figures is not None:
        figures.add("acp: spawn → initialize answered", answered - began)


def one_opencode(bench: Bench, figures: Figures | None, opencode: str, *, git: bool = False) -> None:
    """``opencode run`` against the same fake model (an OpenAI-compatible provider), in the git
    project when ``git`` (where OpenCode takes its snapshots too)."""
    # OpenCode sends its title request (small_model) to the same server, and may retry once.
    bench.model.script(*[Turn.text(ANSWER, chunks=5) for _ in range(4)])
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/m",
        "small_model": "fake/m",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": bench.model.openai_base, "apiKey": "offline"},
                "models": {"m": {}},
            }
        },
    }
    config_file = bench.tmp / "opencode.json"  # outside the projects: the git one stays clean
    config_file.write_text(json.dumps(config))
    began = time.perf_counter()
    proc = subprocess.run(
        [opencode, "run", "--model", "fake/m", "say hello"],
        cwd=bench.git_root if git else bench.root,
        # Named explicitly: without it OpenCode 1.18 sometimes ran its default hosted model.
        env={
            **os.environ,
            "HOME": str(bench.tmp / "home"),
            "OPENCODE_CONFIG": str(config_file),
        },
        capture_output=True,
        timeout=120,
    )
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        sys.exit(f"opencode run failed ({proc.returncode}):\n{proc.stdout.decode()}\n{proc.stderr.decode()}")
    if figures is not None:
        figures.add(f"opencode run{' in git' if git else ''}: whole process", wall)


GOALS: dict[str, float] = {
    "run: whole process": 0.6,
    "run: start → first model request": 0.35,
    "run: model's last byte → exit": 0.08,
    "run: peak RSS (MiB)": 100,
    "serve: spawn → initialize answered": 0.3,
    "serve: initialized → agent loaded": 0.5,
    "serve: background load itself (server log)": 0.5,
    "serve: first prompt → model request": 0.06,
    "acp: spawn → initialize answered": 0.3,  # issue #15: the same bar as serve's
}


def calibrate(runs: int) -> float:
    """Median wall of a bare ``python -c pass`` in this venv: when other work shares the 2 cores it
    grows, and every figure above is inflated alike; compare runs of the bench by it."""
    walls = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        walls.append(time.perf_counter() - began)
    return statistics.median(walls)


def report(figures: Figures) -> None:
    for name, values in figures.samples.items():
        median = statistics.median(values)
        unit, scale = ("MiB", 1.0) if "MiB" in name else ("ms", 1000.0)
        goal = GOALS.get(name)
        verdict = ""
        if goal is not None:
            verdict = f"   goal ≤ {goal * scale:g} {unit}: {'met' if median <= goal else 'MISSED'}"
        print(
            f"{name:<44} median {median * scale:7.1f} {unit}  "
            f"(min {min(values) * scale:.1f}, max {max(values) * scale:.1f}, n={len(values)}){verdict}"
        )
    compared = False
    for where in ("", " in git"):
        theirs, ours = f"opencode run{where}: whole process", f"run{where}: whole process"
        if theirs in figures.samples and ours in figures.samples:
            ratio = figures.median(theirs) / figures.median(ours)
            print(
                f"agentls run{where} is {ratio:.2f}× faster than opencode run{where}, whole process", end=""
            )
            print(" (goal ≥ 3×)" if not where else "")
            compared = True
    if not compared:
        print("opencode is not on PATH: no comparison with OpenCode in this run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--only",
        choices=["run", "git", "serve", "acp", "opencode"],
        action="append",
        help="these scenarios only ('git': agentls, and opencode when on PATH, in the git project)",
    )
    args = parser.parse_args()
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    print(f"console script: {agentls()}; PYTHONDONTWRITEBYTECODE={flag!r}")
    figures = Figures()
    with (
        tempfile.TemporaryDirectory() as name,
        StampedModel.threaded() as model,
        StampedModel.threaded() as titles,
    ):
        bench = Bench(Path(name), model, titles)
        bench.root.mkdir()
        (bench.root / "hello.py").write_text("print('hello')\n")
        if args.only is None or "git" in args.only:
            make_git_project(bench.git_root)
        module = [sys.executable, "-m", "lsp_server"]
        named: list[tuple[str, Callable[[Figures | None], None]]] = [
            ("run", lambda f: one_run(bench, f)),
            ("git", lambda f: one_run(bench, f, git=True)),
            ("serve", lambda f: one_serve(bench, f, [agentls(), "serve"], "serve")),
            ("serve", lambda f: one_serve(bench, f, module, "python -m lsp_server")),
            ("acp", lambda f: one_acp(bench, f)),
        ]
        if (opencode := shutil.which("opencode")) is not None:
            named.append(("opencode", lambda f: one_opencode(bench, f, opencode)))
            named.append(("git", lambda f: one_opencode(bench, f, opencode, git=True)))
        scenarios = [scenario for name, scenario in named if args.only is None or name in args.only]
        for scenario in scenarios:
            scenario(None)  # warm-up: creates the database, fills the OS page cache
        for _ in range(args.runs):  # interleaved, so a busy moment of the machine hits every figure
            for scenario in scenarios:
                scenario(figures)
    report(figures)
    bare = calibrate(args.runs) * 1000
    print(f"machine load check: bare `python -c pass` median {bare:.0f} ms (compare runs by it)")


if __name__ == "__main__":
    main()
