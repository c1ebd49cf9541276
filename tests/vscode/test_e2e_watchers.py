"""Who else watches the session, and who answered its dialog, in a real VS Code (code-server +
Chromium) whose ``agentls serve`` is attached to the agent host (``agentls.host: auto``), with a
second front end, "Neovim", attached to the same host from the test process at the driver's
signals. Screenshots go to ``tests/vscode/screenshots/watchers``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config.loader import Layer
from core.remote.attach import attach
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.early_reads import INIT_LAYER
from tests.host.conftest import stop_leftover_host
from tests.vscode.codeserver import _env
from tests.vscode.scenario import drive


class Neovim:
    """The other front end: attached in a thread of its own at ``attach``, answers the dialog at
    ``answer``, detaches at ``leave`` (each a signal of the driver)."""

    def __init__(self, folder: Path, data: Path, config: dict[str, object]) -> None:
        self.folder, self.data, self.config = folder, data, config
        self.answer, self.leave = threading.Event(), threading.Event()
        self.seen: list[list[str]] = []
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._attached())
        except BaseException as exc:  # the test reports it
            self.failure = exc

    async def _attached(self) -> None:
        # VS Code sends its config as initializationOptions.config: the same layer, the same agent.
        layers = [Layer(name=INIT_LAYER, data=self.config)]
        agent = await attach(self.folder, layers=layers, data_dir=self.data, client="Neovim", mode="attach")
        try:
            (request,) = agent.dialogs.pending_permissions()
            await agent.show([request.sessionID])
            self.seen.append(agent.watchers(request.sessionID))
            await asyncio.to_thread(self.answer.wait, 120)
            await agent.dialogs.reply_permission(request.id, "once")
            await asyncio.to_thread(self.leave.wait, 120)
        finally:
            await agent.close()


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    stop_leftover_host(tmp_path / "agentls-data")  # the host VS Code's server started, detached


def test_the_chat_names_the_other_front_end_and_where_its_dialog_was_answered(
    tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp / "project"
    folder.mkdir()
    calc = folder / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
            Turn.text("Fixed."),
        )
        config = {**fake_model_config(model, titles), "permission": {"edit": "ask"}}
        data = tmp / "agentls-data"
        env = {"AGENTLS_DATA_DIR": str(data), "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config")}
        # The test's front end attaches with code-server's environment: the host serves only its own.
        for name, value in _env(tmp / "vscode", env).items():
            monkeypatch.setenv(name, value)
        neovim = Neovim(folder, data, config)
        signals = {"attach": neovim.thread.start, "answer": neovim.answer.set, "leave": neovim.leave.set}
        driven = drive(
            "e2e_watchers.mjs",
            "watchers",
            tmp,
            folder,
            config,
            settings={"agentls.host": "auto"},
            signals=signals,
        )
        neovim.leave.set()
        neovim.thread.join(60)
    assert neovim.failure is None, repr(neovim.failure)
    alone = driven.phase("dialog")
    assert "also open" not in alone["statusAlone"], alone
    assert "also open in Neovim" in driven.phase("also-open")["status"]
    assert neovim.seen == [["Visual Studio Code"]] or neovim.seen[0][0] in (
        "code-server",
        "Visual Studio Code",
    )
    (note,) = driven.phase("answered-elsewhere")["notifications"]
    assert note == "agentls: the dialog was answered in Neovim.", note
    assert "also open" not in driven.phase("left")["status"]
    assert calc.read_text() == "def add(a, b):\n    return a + b\n"
