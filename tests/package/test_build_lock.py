"""Two builds of one checkout take turns (``tests.tools.source_build_lock``): the editors tier runs the
vscode suite, which builds the ``.vsix`` with a wheel of this checkout, beside the package suite, which
builds the sdist from it; both write setuptools' ``build/`` and ``agentls.egg-info`` in the checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.tools import ROOT, build_lock_path, source_build_lock

# A second process asks for the lock without waiting: exit 0 when it got it, 1 when it is held.
TRY = """
import fcntl, sys
with open(sys.argv[1], "a") as f:
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(1)
"""


def _other_process_gets(lock: Path) -> bool:
    done = subprocess.run([sys.executable, "-c", TRY, str(lock)], timeout=60, check=False)
    assert done.returncode in (0, 1), done
    return done.returncode == 0


def test_a_second_build_of_the_checkout_waits_while_one_runs() -> None:
    lock = build_lock_path()
    with source_build_lock():
        assert not _other_process_gets(lock)
    assert _other_process_gets(lock)


def test_the_lock_is_released_when_the_build_fails() -> None:
    try:
        with source_build_lock():
            raise RuntimeError("the build failed")
    except RuntimeError:
        pass
    assert _other_process_gets(build_lock_path())


def test_another_checkout_builds_at_the_same_time(tmp_path: Path) -> None:
    assert build_lock_path(tmp_path) != build_lock_path(ROOT)
    with source_build_lock():
        assert _other_process_gets(build_lock_path(tmp_path))
