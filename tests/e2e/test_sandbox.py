"""The OS sandbox as a user meets it: ``agentls run`` (a real subprocess) with the fake model scripting
bash calls that write outside the project, reach a local server and delete a folder in the home.

Confined (``workspace-write``, the default) each is refused by the OS and the model reads a tool error
naming the block; in ``full`` mode the same calls do what they did before the sandbox. The confined
run is repeated as an ordinary user (how users run it: unprivileged user namespaces), and needs
root only to become that user.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.record import record
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env

REPO = Path(__file__).resolve().parents[2]
SBX_USER = "agentls-sbx"

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


class Listener:
    """A loopback TCP server that counts the connections it accepted (and answers HTTP 200)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.connections = 0
        self.port = 0
        self.host = host
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Listener:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readline()
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()


@pytest.fixture
async def listener() -> AsyncIterator[Listener]:
    async with Listener() as server:
        yield server


def script_three_calls(model: FakeModelServer, outside: Path, port: int) -> None:
    write = f"python3 -c \"open('{outside}/x-outside','w').write('x')\""
    fetch = f"python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}').read())\""
    model.script(
        Turn.tool_call("bash", {"command": write}),
        Turn.tool_call("bash", {"command": fetch}),
        Turn.tool_call("bash", {"command": "rm -rf ~/some-dir"}),
        Turn.text("done"),
    )


def tool_results(model: FakeModelServer) -> list[str]:
    """What the model read back of each tool call, in order (from its last request)."""
    last = model.requests[-1].messages
    return [str(m.get("content")) for m in last if m.get("role") == "tool"]


def lay_out(root: Path) -> tuple[Path, Path, Path]:
    project, outside, home = root / "project", root / "outside", root / "home"
    for folder in (project, outside, home / "some-dir"):
        folder.mkdir(parents=True)
    (home / "some-dir" / "keep.txt").write_text("keep")
    return project, outside, home


def run_env(root: Path, model: FakeModelServer, title: FakeModelServer, **extra: Any) -> dict[str, str]:
    env = clean_env(root)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title, **extra))
    return env


def assert_confined(results: list[str], outside: Path, home: Path, listener: Listener) -> None:
    assert len(results) == 3, results
    write, fetch, remove = results
    assert not (outside / "x-outside").exists()
    assert f"The sandbox (workspace-write) blocked writing to {outside}/x-outside" in write
    assert '"sandbox": {"writable": [...]}' in write and "full mode" in write
    assert listener.connections == 0
    assert "The sandbox (workspace-write) blocked network access" in fetch
    assert '"network": {"allow": ["*"]}' in fetch
    assert (home / "some-dir" / "keep.txt").read_text() == "keep"
    assert f"blocked writing to {home}/some-dir" in remove


async def test_workspace_write_refuses_writes_outside_the_network_and_the_home(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, listener: Listener
) -> None:
    project, outside, home = lay_out(tmp_path)
    script_three_calls(model, outside, listener.port)
    env = run_env(tmp_path, model, title_model)
    code, _, err = await agentls("run", "--yes", "try it", cwd=project, env=env)
    assert code == 0, err
    assert_confined(tool_results(model), outside, home, listener)


async def test_full_mode_runs_the_same_commands_as_before(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, listener: Listener
) -> None:
    project, outside, home = lay_out(tmp_path)
    script_three_calls(model, outside, listener.port)
    env = run_env(tmp_path, model, title_model, sandbox={"mode": "full"})
    code, _, err = await agentls("run", "--yes", "try it", cwd=project, env=env)
    assert code == 0, err
    write, fetch, remove = tool_results(model)
    assert (outside / "x-outside").read_text() == "x"
    assert listener.connections == 1 and "b'ok'" in fetch
    assert not (home / "some-dir").exists()
    assert "sandbox" not in write + fetch + remove


async def test_a_project_file_is_written_and_git_stays_read_only(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    project, _, _ = lay_out(tmp_path)
    (project / ".git").mkdir()
    (project / ".env").write_text("TOKEN=1\n")
    model.script(
        Turn.tool_call("bash", {"command": "echo built > out.txt && echo $TMPDIR > tmpdir.txt"}),
        Turn.tool_call("bash", {"command": "touch .git/config; echo x >> .env"}),
        Turn.text("done"),
    )
    env = run_env(tmp_path, model, title_model)
    code, _, err = await agentls("run", "--yes", "go", cwd=project, env=env)
    assert code == 0, err
    assert (project / "out.txt").read_text() == "built\n"
    assert "agentls-tmp-" in (project / "tmpdir.txt").read_text()
    assert not (project / ".git" / "config").exists() and (project / ".env").read_text() == "TOKEN=1\n"
    _, guarded = tool_results(model)
    assert f"blocked writing to {project}/.git/config" in guarded and ".env" in guarded


# --- as an ordinary user ---------------------------------------------------------------------


@record
class UserTree:
    """An unprivileged account and a folder of its own (pytest's tmp_path is root's alone)."""

    user: pwd.struct_passwd
    root: Path


@pytest.fixture
def ordinary_user() -> Iterator[UserTree]:
    """An unprivileged account (created when missing): needs root to create it and to become it."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root; as an ordinary user the tests above already are")
    try:
        user = pwd.getpwnam(SBX_USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", SBX_USER], check=True)
        user = pwd.getpwnam(SBX_USER)
    root = Path(tempfile.mkdtemp(prefix="agentls-sbx-e2e-"))
    lay_out(root)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(root)], check=True)
    root.chmod(0o755)
    yield UserTree(user, root)
    shutil.rmtree(root, ignore_errors=True)


async def test_workspace_write_confines_an_ordinary_user_too(
    ordinary_user: UserTree,
    model: FakeModelServer,
    title_model: FakeModelServer,
    listener: Listener,
) -> None:
    root = ordinary_user.root
    project, outside, home = root / "project", root / "outside", root / "home"
    script_three_calls(model, outside, listener.port)
    env = run_env(root, model, title_model)
    # The venv's interpreter lives under /root; the system one of the same version reads its packages.
    site = next((REPO / ".venv" / "lib").glob("python3*/site-packages"))
    env["PYTHONPATH"] = f"{REPO}:{site}"
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env["AGENTLS_CACHE_DIR"] = str(root / "cache")  # the test run's own is root's
    command = ["runuser", "-u", ordinary_user.user.pw_name, "--", "/usr/bin/env", "-i"]
    command += [f"{k}={v}" for k, v in env.items()]
    proc = await asyncio.create_subprocess_exec(
        *command, "/usr/bin/python3", "-m", "lsp_server.cli", "run", "--yes", "try it",
        cwd=project, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode == 0, err.decode()
    assert_confined(tool_results(model), outside, home, listener)


# --- where no sandbox can be set up ----------------------------------------------------------


def path_without_bwrap(root: Path) -> str:
    """A PATH with python3 and the shell's tools but no bwrap (links to the real programs)."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name in ("python3", "sh", "bash", "cat", "echo", "true", "rm", "ls", "git"):
        found = shutil.which(name)
        if found:
            (bin_dir / name).symlink_to(found)
    return str(bin_dir)


async def test_without_bubblewrap_run_says_so_once_and_runs_on_the_rules_alone(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    project, outside, _ = lay_out(tmp_path)
    model.script(
        Turn.tool_call("bash", {"command": f"echo x > {outside}/written"}),
        Turn.tool_call("bash", {"command": "echo again"}),
        Turn.text("done"),
    )
    env = run_env(tmp_path, model, title_model)
    env["PATH"] = path_without_bwrap(tmp_path)
    code, _, err = await agentls("run", "--yes", "go", cwd=project, env=env)
    assert code == 0, err
    assert err.count("agentls: warning: commands run without an OS sandbox") == 1, err
    assert "bubblewrap (bwrap) is not installed" in err and "agentls doctor" in err
    assert (outside / "written").exists()  # rules alone: --yes allowed it, nothing else stops it


async def test_doctor_names_the_protection_and_why(tmp_path: Path) -> None:
    project, _, _ = lay_out(tmp_path)
    env = clean_env(tmp_path)
    env["GH_TOKEN"] = "secret-value"
    code, out, err = await agentls("doctor", cwd=project, env=env)
    assert code == 0, err
    assert "commands: workspace-write sandbox by bubblewrap" in out
    assert f"writable: {project}" in out or f", {project}" in out
    assert "network: off; HTTP(S) through the proxy: hosts on the allow-list pass (none), others ask" in out
    assert "GH_TOKEN" in out and "secret-value" not in out

    env["PATH"] = path_without_bwrap(tmp_path)
    code, out, _ = await agentls("doctor", cwd=project, env=env)
    assert code == 1
    assert "commands: rules alone: no OS sandbox can be set up here" in out
    assert "(bubblewrap (bwrap) is not installed)" in out
    assert "apt install bubblewrap" in out

    env["AGENTLS_CONFIG_CONTENT"] = json.dumps({"sandbox": {"mode": "full"}})
    code, out, _ = await agentls("doctor", cwd=project, env=env)
    assert code == 0 and 'full mode: commands run without a sandbox (sandbox.mode is "full")' in out


async def test_a_projects_own_config_cannot_switch_the_sandbox_off(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    project, outside, _ = lay_out(tmp_path)
    loose = {"sandbox": {"mode": "full", "writable": [str(outside)]}}
    (project / "agentls.json").write_text(json.dumps(loose))
    model.script(Turn.tool_call("bash", {"command": f"echo x > {outside}/written"}), Turn.text("done"))
    env = run_env(tmp_path, model, title_model)
    code, _, err = await agentls("run", "--yes", "go", cwd=project, env=env)
    assert code == 0, err
    assert not (outside / "written").exists()
    assert f"blocked writing to {outside}/written" in tool_results(model)[0]


async def test_credentials_in_the_home_and_agentls_config_read_empty(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    project, _, home = lay_out(tmp_path)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-TEXT")
    (home / ".netrc").write_text("machine x password NETRC-PASSWORD")
    (tmp_path / "config").mkdir()
    user_config = {"provider": {"p": {"options": {"api_key": "CONFIG-KEY"}}}}
    (tmp_path / "config" / "agentls.json").write_text(json.dumps(user_config))
    command = f"cat ~/.ssh/id_ed25519 ~/.netrc {tmp_path}/config/agentls.json; ls -A ~/.ssh; echo listed"
    model.script(Turn.tool_call("bash", {"command": command}), Turn.text("done"))
    env = run_env(tmp_path, model, title_model)
    code, _, err = await agentls("run", "--yes", "go", cwd=project, env=env)
    assert code == 0, err
    (shown,) = tool_results(model)
    assert "listed" in shown
    for secret in ("PRIVATE-KEY-TEXT", "NETRC-PASSWORD", "CONFIG-KEY"):
        assert secret not in shown


# --- hosts through the sandbox's proxy -------------------------------------------------------


@pytest.fixture
async def elsewhere() -> AsyncIterator[Listener]:
    """A server on 127.0.0.2: not the sandbox's loopback name, so commands reach it by the proxy."""
    async with Listener("127.0.0.2") as server:
        yield server


def fetch_command(server: Listener) -> str:
    return f"python3 -c \"import urllib.request as u; print(u.urlopen('http://{server.host}:{server.port}').read())\""


@pytest.mark.parametrize(
    ("allow", "yes", "reached"),
    [
        (["127.0.0.2"], False, True),  # on the allow-list: no question
        ([], True, True),  # asked, and --yes allows it
        ([], False, False),  # asked, and refused (no terminal to ask on)
    ],
)
async def test_a_host_is_reached_through_the_proxy_when_allowed_or_approved(
    tmp_path: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
    elsewhere: Listener,
    allow: list[str],
    yes: bool,
    reached: bool,
) -> None:
    project, _, _ = lay_out(tmp_path)
    model.script(Turn.tool_call("bash", {"command": fetch_command(elsewhere)}), Turn.text("done"))
    # bash itself is allowed: what is asked (or not) is the host.
    sandbox, permission = {"network": {"allow": allow}}, {"bash": "allow"}
    env = run_env(tmp_path, model, title_model, sandbox=sandbox, permission=permission)
    code, _, err = await agentls("run", *(["--yes"] if yes else []), "go", cwd=project, env=env)
    (shown,) = tool_results(model)
    assert (elsewhere.connections == 1) is reached, (shown, err)
    if reached:
        assert code == 0, err
        assert "b'ok'" in shown
    else:
        assert "The sandbox (workspace-write) blocked network access to 127.0.0.2" in shown
