"""`agentls serve` attached to a warm agent host against the same server with its agent in-process
(issue #39): how fast an editor's server answers, and what three attached editors cost in memory.

Interleaved pairs of fresh `agentls serve` processes over stdio, each timed from outside: spawn →
`initialize` answered, `initialized` → the agent loaded (`agent/config` answered), first prompt →
model request. The host is started once (`agentls host start`) and warmed by one attached server,
as an editor opened earlier would have done. Then memory: three attached servers held open at once
(their RSS each, and with the host's) against one in-process server's, all with their agent loaded.

    .venv/bin/python bench/host_serve.py [--runs 10]

Three kinds side by side: "relay" (``AGENTLS_HOST=attach``: a standard-library relay, the server
in the host), "full attached" (``initializationOptions.host``: the server in the editor's process,
its agent the host's; the attached serve before the relay) and "in-process". 2026-12-07, the
2-core machine at load 15-17 (bare ``python -c pass`` 299 ms), --runs 4: one relay 22.8 MiB, the
host with three relayed sessions 65.8 MiB, together 1.73x one in-process server's 77.7 MiB (full
attached: 261.1 MiB, 3.36x); spawn -> initialize answered 948 / 1,058 / 807 ms (relay / full
attached / in-process: the load's noise), initialized -> agent loaded 398 / 9,987 / 9,313 ms,
first prompt -> model request 235 / 145 / 54 ms. See docs/host.md, "Not yet".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.startup import (
    Bench,
    Figures,
    StampedModel,
    agentls,
    calibrate,
    initialize_params,
    report,
    wait_exit,
)
from bench.startup_wire import StdioClient

GOALS = {"relay: spawn → initialize answered": 0.100}
KINDS = ("relay", "full attached", "in-process")


class Serve:
    """One `agentls serve` over stdio, initialized, its agent loaded."""

    def __init__(self, bench: Bench, name: str, figures: Figures | None = None) -> None:
        """``name``: "relay" (AGENTLS_HOST=attach: a byte relay, its session in the host),
        "full attached" (initializationOptions.host=attach: the whole server in this process,
        its agent the host's; the attached serve before the relay), "in-process"."""
        attached = name != "in-process"
        env = {**bench.env(), "AGENTLS_HOST": "attach" if name == "relay" else "never"}
        self.log = bench.tmp / f"serve-{time.monotonic_ns()}.log"
        command = [agentls(), "serve", "--log-file", str(self.log), "--log-level", "INFO"]
        began = time.perf_counter()
        self.proc = subprocess.Popen(
            command, env=env, cwd=bench.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.client = StdioClient(self.proc)
        params = initialize_params(bench)
        del params["initializationOptions"]  # the config is the environment's, as the host's is
        if name == "full attached":
            params["initializationOptions"] = {"host": "attach"}
        params["clientInfo"] = {"name": f"bench {self.proc.pid}"}
        answered, _ = self.client.call("initialize", params)
        self.client.notify("initialized", {})
        sent = time.perf_counter()
        loaded, _ = self.client.call("agent/config", {})
        if attached != self._attached(bench):
            sys.exit(f"agentls serve ({name}) did not run as asked; its log:\n{self.log.read_text()}")
        if figures is not None:
            figures.add(f"{name}: spawn → initialize answered", answered - began)
            figures.add(f"{name}: initialized → agent loaded", loaded - sent)
            session = self.client.call("agent/session/create", {"title": "bench"})[1]
            bench.script()
            seen = len(bench.model.arrived)
            asked = time.perf_counter()
            answer = self.client.request(
                "agent/session/prompt",
                {"sessionID": session["id"], "parts": [{"type": "text", "text": "say hello"}]},
            )
            reached = bench.model.wait_arrived(seen + 1, timeout=60)
            answer.get(timeout=60)
            figures.add(f"{name}: first prompt → model request", reached - asked)

    def _attached(self, bench: Bench) -> bool:
        """Whether the host lists this server among its clients."""
        done = subprocess.run(
            [agentls(), "host", "status", "--json"], env=bench.env(), capture_output=True, check=False
        )
        clients = json.loads(done.stdout or b"{}").get("clients", [])
        return f"bench {self.proc.pid}" in clients

    def rss_mib(self) -> float:
        return rss_mib(self.proc.pid)

    def close(self) -> None:
        self.client.call("shutdown", None)
        self.client.notify("exit", None)
        wait_exit(self.proc)


def rss_mib(pid: int) -> float:
    """The process's resident set now (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def host_pid(bench: Bench) -> int:
    done = subprocess.run(
        [agentls(), "host", "status", "--json"], env=bench.env(), capture_output=True, check=True
    )
    return int(json.loads(done.stdout)["pid"])


def host(bench: Bench, action: str) -> None:
    """``agentls host ACTION`` on the bench's data dir."""
    subprocess.run([agentls(), "host", action], env=bench.env(), check=True, stdout=subprocess.DEVNULL)


def memory(bench: Bench, figures: Figures, name: str) -> None:
    """Three attached servers of ``name``'s kind at once (and the host) against one in-process
    server (the host is restarted first, so it holds only what these three need)."""
    alone = Serve(bench, "in-process")
    figures.add("in-process: one server's RSS (MiB)", alone.rss_mib())
    alone.close()
    host(bench, "stop")
    host(bench, "start")
    three = [Serve(bench, name) for _ in range(3)]
    each = [serve.rss_mib() for serve in three]
    for value in each:
        figures.add(f"{name}: one server's RSS (MiB)", value)
    host_rss = rss_mib(host_pid(bench))
    figures.add(f"{name}: the host's RSS (MiB)", host_rss)
    figures.add(f"{name}: three servers + the host (MiB)", sum(each) + host_rss)
    for serve in three:
        serve.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    figures = Figures()
    with (
        tempfile.TemporaryDirectory() as name,
        StampedModel.threaded() as model,
        StampedModel.threaded() as titles,
    ):
        bench = Bench(Path(name), model, titles)
        bench.root.mkdir()
        (bench.root / "hello.py").write_text("print('hello')\n")
        host(bench, "start")
        try:
            for name in KINDS:  # warm-up: the host opens the project, as an editor did
                Serve(bench, name).close()
            for _ in range(args.runs):
                for name in KINDS:
                    Serve(bench, name, figures=figures).close()
            for _ in range(max(1, args.runs // 3)):
                for name in ("relay", "full attached"):
                    memory(bench, figures, name)
        finally:
            host(bench, "stop")
    report(figures)
    for goal_name, goal in GOALS.items():
        median = figures.median(goal_name)
        print(f"{goal_name}: goal ≤ {goal * 1000:g} ms: {'met' if median <= goal else 'MISSED'}")
    for name in ("relay", "full attached"):
        ratio = figures.median(f"{name}: three servers + the host (MiB)") / figures.median(
            "in-process: one server's RSS (MiB)"
        )
        print(f"{name}: three servers + the host: {ratio:.2f}× one in-process server (goal < 1.5×)")
    print(f"machine load check: bare `python -c pass` median {calibrate(args.runs) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
