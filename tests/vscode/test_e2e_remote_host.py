"""A real VS Code (code-server + Chromium) whose agent runs in an agent host on TCP, set up as a user
does for a host on another machine (docs/host.md, Remote): ``agentls.host: remote``,
``agentls.hostAddress`` and ``agentls.hostTokenFile`` in the settings, the host started with
``agentls host serve --tcp 127.0.0.1:0 --token-file FILE`` on a data dir of its own (the "other
machine"). Screenshots go to ``tests/vscode/screenshots/remote``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.host.conftest import stop_leftover_host
from tests.vscode.scenario import drive

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """The host on 127.0.0.1 (its address, its data dir, its token file), stopped after the test."""
    data, token = tmp_path / "remote-data", tmp_path / "host.token"
    data.mkdir()
    env = {**os.environ, "AGENTLS_CONFIG_DIR": str(tmp_path / "remote-config")}
    read_end, write_end = os.pipe()
    command = [sys.executable, "-m", "host", "--data-dir", str(data), "--ready-fd", str(write_end)]
    command += ["--tcp", "127.0.0.1:0", "--token-file", str(token)]
    with (data / "host.out").open("wb") as log:
        proc = subprocess.Popen(command, cwd=data, env=env, stdout=log, stderr=log, pass_fds=(write_end,))
    os.close(write_end)
    with os.fdopen(read_end, "rb") as ready:
        line = ready.readline().decode()  # "ready SOCKET tcp://127.0.0.1:PORT" once it listens; "" if it died
    try:
        assert line, f"the host did not start:\n{(data / 'host.out').read_text()[-3000:]}"
        yield line.split()[-1].removeprefix("tcp://"), data, token
    finally:
        proc.terminate()
        proc.wait(30)
        stop_leftover_host(data)


def test_the_chat_runs_its_turn_in_the_remote_host_the_settings_name(
    tmp_path: Path, remote: tuple[str, Path, Path]
) -> None:
    address, host_data, token = remote
    assert (token.stat().st_mode & 0o077) == 0 and token.read_text().strip()
    folder = tmp_path / "project"
    folder.mkdir()
    statuses: list[dict[str, object]] = []

    def status() -> None:
        env = {**os.environ, "AGENTLS_DATA_DIR": str(host_data)}
        shown = subprocess.run(
            [sys.executable, "-m", "agentls", "host", "status", "--json"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        statuses.append(json.loads(shown.stdout))

    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text("Answered by the remote host."))
        settings = {
            "agentls.host": "remote",
            "agentls.hostAddress": address,
            "agentls.hostTokenFile": str(token),
        }
        driven = drive(
            "e2e_remote.mjs",
            "remote",
            tmp_path,
            folder,
            fake_model_config(model, titles),
            settings=settings,
            signals={"status": status},
        )
    answered = driven.phase("answered")
    assert "Answered by the remote host." in answered["answer"], answered
    assert not [n for n in answered["notifications"] if "agentls" in n], answered["notifications"]
    (shown,) = statuses
    assert shown["clients"] in (["Visual Studio Code"], ["code-server"]), shown
    # The setting reaches the server's environment too: it relays to a session in the host.
    assert [relay.split()[0] for relay in shown["relays"]] == ["lsp"], shown
    # The turn ran in the remote host, and no host was started on the editor's machine's data dir.
    assert (host_data / "agentls.db").is_file(), sorted(host_data.iterdir())
    assert not (tmp_path / "agentls-data" / "host.lock").exists()
