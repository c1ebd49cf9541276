"""The pre-imported spawner (tests/prespawn) gives a test the process a cold ``python -m`` would:
each behaviour below is asserted for both, on real processes (a probe module in the test's folder,
and the real server for the handshake)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import prespawn
from tests.lsp.editor import PLUGIN, SERVER, serve_command, start
from tests.ticks import until_sync

# A module the tests run with ``-m``: says what it was given, then does what argv[1] asks.
PROBE = textwrap.dedent(
    """
    import json, os, signal, sys, time
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    said = {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("PROBE_VALUE"),
            "unset": "PROBE_UNSET" in os.environ, "path0": sys.path[0], "pid": os.getpid(),
            "path": sys.path, "orig": sys.orig_argv[1:],
            "stdin": sys.stdin.readline() if sys.argv[1] == "echo" else ""}
    print(json.dumps(said), flush=True)
    action = sys.argv[1]
    if action == "exit":
        sys.exit(int(sys.argv[2]))
    if action == "pass-fd":
        os.write(int(sys.argv[2]), b"through")
    if action == "term":
        signal.signal(signal.SIGTERM, lambda *_: (print("got TERM", flush=True), os._exit(4)))
        print("waiting", flush=True)
        time.sleep(600)
    if action == "wait":
        time.sleep(600)
    """
)
MODES = [pytest.param(False, id="forked"), pytest.param(True, id="cold")]


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    (tmp_path / "probe.py").write_text(PROBE)
    return tmp_path


def popen(
    folder: Path,
    cold: bool,
    *args: str,
    spawner: prespawn.Spawner = prespawn.SPAWNER,
    env_extra: dict[str, str] | None = None,
    **kwargs: object,
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PROBE_VALUE": "from the test", **(env_extra or {})}
    env.pop("PROBE_UNSET", None)
    return subprocess.Popen(
        prespawn.command("probe", *args, cold=cold, spawner=spawner),
        cwd=folder,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,  # type: ignore[arg-type]
    )


def said(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else ""
    result: dict[str, object] = json.loads(line)
    return result


@pytest.mark.parametrize("cold", MODES)
def test_the_child_gets_the_tests_argv_env_folder_and_stdin(probe: Path, cold: bool) -> None:
    spawner = prespawn.Spawner()  # one that started with a variable the test then removed
    os.environ["PROBE_UNSET"] = "set in the test process only while the spawner started"
    try:
        spawner.start()
    finally:
        del os.environ["PROBE_UNSET"]
    try:
        proc = popen(probe, cold, "echo", "two words", spawner=spawner)
        assert proc.stdin is not None
        proc.stdin.write(b"a line\n")
        proc.stdin.close()
        seen = said(proc)
        assert proc.wait(60) == 0
    finally:
        spawner.stop()
    assert not Path(spawner.path).parent.exists(), "the spawner's folder is removed"
    assert seen["argv"] == ["echo", "two words"]
    assert seen["orig"] == ["-m", "probe", "echo", "two words"]
    assert seen["cwd"] == str(probe)
    assert seen["path0"] == str(probe)
    assert seen["env"] == "from the test"
    assert seen["unset"] is False
    assert seen["stdin"] == "a line\n"


@pytest.mark.parametrize("cold", MODES)
def test_a_different_python_path_gets_a_process_that_uses_it(probe: Path, cold: bool, tmp_path: Path) -> None:
    """PYTHONPATH (as any PYTHON* variable) is read at the interpreter's start: a request whose
    value differs from the spawner's is run cold (exec), not forked with the spawner's path."""
    extra = tmp_path / "extra"
    extra.mkdir()
    path = f"{os.environ.get('PYTHONPATH', prespawn.REPO)}:{extra}"
    proc = popen(probe, cold, "exit", "0", env_extra={"PYTHONPATH": path})
    seen = said(proc)
    assert proc.wait(60) == 0
    assert str(extra) in seen["path"]  # type: ignore[operator]


@pytest.mark.parametrize("cold", MODES)
def test_the_exit_status_is_the_childs(probe: Path, cold: bool) -> None:
    proc = popen(probe, cold, "exit", "3")
    said(proc)
    assert proc.wait(60) == 3


@pytest.mark.parametrize("cold", MODES)
def test_an_fd_passed_to_the_process_reaches_the_child_under_its_number(probe: Path, cold: bool) -> None:
    read_end, write_end = os.pipe()
    proc = popen(probe, cold, "pass-fd", str(write_end), pass_fds=(write_end,))
    os.close(write_end)
    said(proc)
    assert proc.wait(60) == 0
    assert os.read(read_end, 100) == b"through"
    assert os.read(read_end, 100) == b"", "the pipe's end came with the child's"
    os.close(read_end)


@pytest.mark.parametrize("cold", MODES)
def test_a_signal_to_the_process_reaches_the_child(probe: Path, cold: bool) -> None:
    proc = popen(probe, cold, "term")
    said(proc)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"waiting\n"
    proc.terminate()
    assert proc.wait(60) == 4
    assert proc.stdout.read() == b"got TERM\n"


@pytest.mark.parametrize("cold", MODES)
def test_a_child_killed_by_a_signal_kills_the_process_with_it(probe: Path, cold: bool) -> None:
    proc = popen(probe, cold, "wait")
    child = said(proc)["pid"]
    assert prespawn.own_pid(proc.pid) == child  # the launcher's child when forked, itself cold
    assert isinstance(child, int)
    os.kill(child, signal.SIGKILL)
    assert proc.wait(60) == -signal.SIGKILL


@pytest.mark.parametrize("cold", MODES)
def test_killing_the_process_ends_the_child_at_once(probe: Path, cold: bool) -> None:
    proc = popen(probe, cold, "wait")
    child = said(proc)["pid"]
    assert isinstance(child, int)
    pidfd = os.pidfd_open(child)
    proc.kill()
    assert proc.wait(60) == -signal.SIGKILL
    assert proc.stdout is not None
    assert proc.stdout.read() == b"", "stdout ends with both"
    until_sync(lambda: select.select([pidfd], [], [], 0)[0], "the child's end", timeout=30)
    os.close(pidfd)


async def test_a_forked_and_a_cold_server_answer_the_same_handshake(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    answers = []
    for name, command in (("forked", serve_command()), ("cold", SERVER)):
        client, _, result = await start(command, project, tmp_path / name, PLUGIN)
        answer = client.protocol._converter.unstructure(result)
        await client.shutdown_session()
        await client.stop()
        # The server's own pid: the forked child's, not the launcher's (tests/prespawn says so).
        assert isinstance(answer["capabilities"]["experimental"]["agent"].pop("processId"), int)
        answers.append(answer)
    assert answers[0] == answers[1]
    assert answers[0]["capabilities"]["experimental"]["agent"]["version"]


def test_the_spawner_stays_out_of_the_editors_tier() -> None:
    """scripts/check runs the editors tier and the attached suite cold (an import error of the
    product is seen there as a user sees it)."""
    check = (Path(prespawn.REPO) / "scripts" / "check").read_text()
    assert "AGENTLS_TEST_SPAWN=cold" in check
    env = {**os.environ, "AGENTLS_TEST_SPAWN": "cold", "PYTHONPATH": str(prespawn.REPO)}
    code = "from tests import prespawn; print(prespawn.command('lsp_server'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str([sys.executable, "-m", "lsp_server"])


def test_a_spawner_that_dies_takes_its_children_with_it(probe: Path) -> None:
    spawner = prespawn.Spawner()
    try:
        proc = popen(probe, False, "wait", spawner=spawner)
        child = said(proc)["pid"]
        assert isinstance(child, int)
        pidfd = os.pidfd_open(child)
        assert spawner._proc is not None
        spawner._proc.kill()
        assert proc.wait(60) == 70  # launch.py's EX_SOFTWARE
        until_sync(lambda: select.select([pidfd], [], [], 0)[0], "the orphan's end", timeout=30)
        os.close(pidfd)
    finally:
        spawner.stop()
    assert not Path(spawner.path).parent.exists(), "what the killed spawner left is removed"


# A module that validates one config with the product's deferred config model and says whether that
# model had been built before (in the spawner) and what it read.
CONFIG_PROBE = textwrap.dedent(
    """
    import json
    from core.config.schema import Config
    built = Config.__pydantic_complete__
    config = Config.model_validate({"model": "fake/m", "provider": {"fake": {"options": {"api_key": "k"}}}})
    print(json.dumps({"built": built, "read": config.model_dump(mode="json")}), flush=True)
    """
)


def test_a_forked_child_gets_the_products_deferred_models_built_and_reads_alike(tmp_path: Path) -> None:
    """The spawner builds the validators the product defers to their first use (zygote.py's
    build_deferred), once for every child; a cold process builds its own: both read a config alike."""
    (tmp_path / "config_probe.py").write_text(CONFIG_PROBE)
    seen: dict[bool, dict[str, object]] = {}
    for cold in (False, True):
        env = {**os.environ, "PYTHONPATH": str(prespawn.REPO)}
        proc = subprocess.Popen(
            prespawn.command("config_probe", cold=cold), cwd=tmp_path, env=env, stdout=subprocess.PIPE
        )
        seen[cold] = said(proc)
        assert proc.wait(60) == 0
    assert seen[False]["built"] is True
    assert seen[False]["read"] == seen[True]["read"]


def test_a_model_that_cannot_be_built_yet_stays_deferred_and_others_outside_the_product_are_left() -> None:
    from types import ModuleType

    from tests.prespawn import zygote

    product, other = ModuleType("core.prespawn_probe"), ModuleType("elsewhere.prespawn_probe")
    code = textwrap.dedent(
        """
        from pydantic import BaseModel, ConfigDict
        class Ready(BaseModel):
            model_config = ConfigDict(defer_build=True)
            x: int
        class Unresolved(BaseModel):
            model_config = ConfigDict(defer_build=True)
            y: "NotDefinedAnywhere"  # noqa: F821
        """
    )
    for module in (product, other):
        exec(code, vars(module))  # the probe's own text above
        for model in (module.Ready, module.Unresolved):
            model.__module__ = module.__name__
    zygote.build_deferred({product.__name__: product, other.__name__: other})
    assert product.Ready.__pydantic_complete__ and product.Ready(x=1).x == 1
    assert not product.Unresolved.__pydantic_complete__  # no error: built at first use, as cold
    assert not other.Ready.__pydantic_complete__  # not the product's: left as it is
