"""Pre-imported agentls processes for the core tier: ``command("lsp_server", ...)`` is what a test
runs instead of ``[sys.executable, "-m", "lsp_server", ...]``.

Starting a real ``agentls serve`` costs ~1.3 s of CPU, nearly all of it imports (pygls,
lsprotocol, pydantic, the protocol and the core), and the lsp, acp and host suites start hundreds.
So each test process starts one spawner (``zygote.py``) that imports those modules once, and a test's
command is a small launcher (``launch.py``, the standard library only) that hands the spawner its
streams, argv, environment and folder: the spawner forks a child that runs the real module's main
with them. The test still holds a real process with its own pipes: the launcher, which exits with
the child's status, dies of its signal, passes on the signals it gets, and whose death kills the
child at once (tests/lsp/test_prespawn.py holds each of these, forked and cold). What differs: the
pid the test holds is the launcher's, the server's own (``initialize``'s ``processId``) is the
child's; the child's parent is the spawner; it shares the spawner's interpreter options and hash
seed; the pydantic models and type adapters the product defers to their first use (``defer_build``)
are already built (``zygote.build_deferred``; tests/lsp/test_prespawn.py reads a config alike both ways).

Where the spawner is not used:
- ``AGENTLS_TEST_SPAWN=cold`` in the environment (or ``cold=True``): every process cold, as before;
- the editors tier and the ``attached`` suite (scripts/check sets ``AGENTLS_TEST_SPAWN=cold`` for
  them), so that an import error of the product is still seen as a user would see it;
- tests about start-up, the parent process, interpreter options or import behaviour pass
  ``cold=True`` (test_editor_process, test_editor_death, ...).

Checked for the pre-import (2026-12-07): no module of ``core``, ``lsp_server``, ``acp_server``,
``host``, ``cli`` or ``agentls`` reads ``os.environ``, the working folder, ``sys.argv`` or the clock
at import (module-level statements and default arguments; the ``functools.cache`` functions are
not called at import), and the spawner configures no logging and starts no thread. What the
product reads of the interpreter itself: ``sys.orig_argv`` (acp_server/auth_methods.py repeats the
command line), which the child sets as a cold start has it; ``sys.executable`` is the same.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAUNCH = Path(__file__).resolve().parent / "launch.py"
COLD = os.environ.get("AGENTLS_TEST_SPAWN") == "cold"


class Spawner:
    """One spawner process, started on first use and stopped when this process exits."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._folder = ""
        self.path = ""

    def start(self) -> str:
        if self._proc is not None and self._proc.poll() is None:
            return self.path
        self._folder = tempfile.mkdtemp(prefix="alz-", dir="/tmp")  # short: a socket path fits
        self.path = os.path.join(self._folder, "s")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.prespawn.zygote", self.path],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if line != b"ready\n":
            raise RuntimeError(f"the pre-imported spawner did not start (exit {self._proc.wait()})")
        atexit.register(self.stop)
        return self.path

    def stop(self) -> None:
        """Close its stdin: it kills what it still runs, removes its socket and exits."""
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(self._folder, ignore_errors=True)  # (what a killed spawner left there too)


SPAWNER = Spawner()


def own_pid(pid: int, spawner: Spawner = SPAWNER) -> int:
    """The pid of the process that runs the module, for the process ``pid`` a test started with
    ``command``: the forked child's while it runs, ``pid`` itself when it was started cold."""
    try:
        with open(f"{spawner.path}.{pid}") as held:
            return int(held.read())
    except (FileNotFoundError, ValueError):
        return pid


def command(module: str, *args: str, cold: bool | None = None, spawner: Spawner = SPAWNER) -> list[str]:
    """The argv that runs ``python -m module args``: cold if ``cold``, through the spawner if
    ``cold`` is False, and when it is None as ``AGENTLS_TEST_SPAWN`` says (forked unless ``cold``)."""
    if cold or (cold is None and COLD):
        return [sys.executable, "-m", module, *args]
    return [sys.executable, "-S", "-E", str(LAUNCH), spawner.start(), module, *args]
