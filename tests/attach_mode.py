"""The suites attached: ``AGENTLS_TEST_HOST=attach`` runs every ``agentls serve``, ``agentls acp`` and
``agentls run`` a test spawns attached to an agent host of that test's own.

The front ends get ``AGENTLS_HOST=auto`` (set in this process, which every spawned process inherits
its environment from), so the first one a test starts starts a host on the test's data dir (its
socket named after that dir, under the test's own runtime dir) with the front end's environment;
the others of the test attach to it. At the test's end each host found under its ``tmp_path`` is
stopped, and a test whose front end opened a store with no host beside it fails: it ran
in-process, silently (``open_agent`` falls back when the host cannot be used). A test about the
in-process path only is marked ``@pytest.mark.in_process("why")`` and skipped when attached.
``./scripts/check`` runs the ``attached`` suite this way (scripts/budgets).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ATTACHED = os.environ.get("AGENTLS_TEST_HOST") == "attach"
IDLE_S = "60"  # a host a test left (one it did not find to stop) exits on its own


def configure(config: pytest.Config) -> None:
    """Register the marker (called from tests/conftest.py)."""
    config.addinivalue_line("markers", "in_process(reason): the in-process agent only; skipped attached")


def skip_in_process(item: pytest.Item) -> None:
    """Attached, skip a test marked ``in_process`` with its reason."""
    marker = item.get_closest_marker("in_process")
    if ATTACHED and marker is not None:
        pytest.skip(f"in-process only: {marker.args[0] if marker.args else 'no reason given'}")


@pytest.fixture(scope="session")
def attached_env() -> Iterator[None]:
    """Attached, every front end the tests spawn attaches (starting a host); its runtime dir is ours."""
    if not ATTACHED:
        yield
        return
    runtime = Path(tempfile.mkdtemp(prefix="alh-", dir="/tmp"))  # short: a socket path fits
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLS_HOST", "auto")
        patch.setenv("AGENTLS_HOST_IDLE", IDLE_S)
        patch.setenv("XDG_RUNTIME_DIR", str(runtime))
        yield
    shutil.rmtree(runtime, ignore_errors=True)


def stop_hosts(tmp_path: Path) -> list[str]:
    """Stop the hosts of the data dirs under ``tmp_path``; the data dirs whose store was opened with
    no host ever started on them (the front end ran in-process)."""
    from core.storage import DB_NAME  # (here: the suites that never attach need not import the store)
    from tests.host.conftest import stop_leftover_host

    in_process = []
    for store in tmp_path.rglob(DB_NAME):
        data_dir = store.parent
        if (data_dir / "host.lock").exists():
            stop_leftover_host(data_dir)
        else:
            in_process.append(str(data_dir))
    return in_process


@pytest.fixture(autouse=True)
def attached_test(request: pytest.FixtureRequest, attached_env: None) -> Iterator[None]:
    """Attached: after the test, stop its hosts; fail it when a front end of it ran in-process."""
    if not ATTACHED:
        yield
        return
    tmp_path: Path = request.getfixturevalue("tmp_path")
    yield
    in_process = stop_hosts(tmp_path)
    if in_process:
        pytest.fail(f"attached run, but a front end ran in-process (no host on {', '.join(in_process)})")
