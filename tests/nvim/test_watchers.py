"""Attached to the agent host, a real headless Neovim's chat says who else shows its session
(winbar: "also open in Visual Studio Code") and that a dialog closed because another front end
answered it. The other front end is a real attach to the same host, from the test process."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config.loader import Layer
from core.remote.attach import attach
from demo.fake_script import Turn
from lsp_server.early_reads import SETTINGS_LAYER
from tests.host.conftest import stop_leftover_host
from tests.nvim.harness import AGENTLS, Nvim
from tests.ticks import until


@pytest.fixture
def attached_nvim(nvim: Nvim) -> Iterator[Nvim]:
    nvim.trust_project()  # an untrusted project is never attached
    try:
        yield nvim
    finally:
        stop_leftover_host(nvim.home / "agentls-data")  # the host the server started, detached


async def test_the_winbar_names_another_front_end_and_a_dialog_answered_there_says_so(
    attached_nvim: Nvim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nvim = attached_nvim
    calc = nvim.project / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n")
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    ready = tmp_path / "ready"
    extra = {"AGENTLS_BIN": str(AGENTLS), "WATCH_READY": str(ready)}
    # This process attaches as another front end: the host serves only the environment it runs with.
    for name, value in nvim.env(**extra).items():
        monkeypatch.setenv(name, value)
    run = asyncio.ensure_future(asyncio.to_thread(nvim.run, "watchers.lua", 180, **extra))
    await until(lambda: ready.exists() or run.done(), "Neovim's dialog", 120)
    assert not run.done(), run.result().stdout + run.result().stderr
    session_id = ready.read_text()
    # The plugin's `config` is its settings layer: the same layers, the same agent (and its dialogs).
    layers = [Layer(name=SETTINGS_LAYER, data=nvim.options()["config"])]
    data = nvim.home / "agentls-data"
    code = await attach(nvim.project, layers=layers, data_dir=data, client="Visual Studio Code")
    try:
        await code.show([session_id])
        assert code.watchers(session_id) == ["Neovim"]
        (request,) = code.dialogs.pending_permissions(session_id)
        await code.dialogs.reply_permission(request.id, "once")
    finally:
        await code.close()
    result = (await run).check()
    said = ("WINBAR", "AFTER", "NOTES", "DIALOG")
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.split(" ", 1)[0] in said)
    assert "also open in Visual Studio Code" in lines["WINBAR"], lines
    assert "also open" not in lines["AFTER"], lines
    assert "the dialog was answered in Visual Studio Code" in lines["NOTES"], lines
    assert lines["DIALOG"] == "true", lines  # closed under the user
    assert calc.read_text() == "def add(a, b):\n    return a + b\n"
