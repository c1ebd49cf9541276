"""The stock-client dialog guard (lsp_server.plain_gate): who gets it, and when a dialog may ask.

End to end in a real Neovim: tests/stock/test_neovim_interactive.py (typing while a permission
arrives; keys typed ahead into the dialog)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.clients import READS_TYPEAHEAD, Connection, parse_options
from lsp_server.plain_gate import REASK_MAX, TypingGate, reask_after, typed_ahead
from tests.lsp.conftest import Connected, agent_config


@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        ("Neovim", {}, READS_TYPEAHEAD),  # inputlist() reads the typeahead
        ("nvim-custom", {}, READS_TYPEAHEAD),
        ("eglot", {}, 0.0),  # its prompt is the minibuffer: left as it was
        ("", {}, 0.0),  # unnamed (eglot 1.9)
        ("Visual Studio Code", {}, 0.0),
        ("Neovim", {"dialogMinRead": 0}, 0.0),  # a user's UI picker that ignores the typeahead
        ("eglot", {"dialogMinRead": 1.5}, 1.5),
    ],
)
def test_who_gets_the_read_guard(name: str, options: dict[str, float], expected: float) -> None:
    connection = Connection(name=name, initial=parse_options(options, "initializationOptions"))
    assert connection.dialog_min_read == expected


@pytest.mark.parametrize("bad", [-1, 6, "soon"])
def test_a_bad_read_time_is_left_out_and_reported(bad: object) -> None:
    reports: list[str] = []
    options = parse_options({"dialogMinRead": bad}, "initializationOptions", reports.append)
    assert options.dialogMinRead is None
    assert len(reports) == 1 and "dialogMinRead" in reports[0], reports


@pytest.mark.parametrize(
    ("refused", "expected"),
    [
        (0, 0.0),  # asked the first time: only the pause in typing
        (1, 0.7),  # refused once: at least a pause's length
        (2, 1.4),  # each further refusal waits twice as long,
        (3, 2.8),
        (4, REASK_MAX),  # up to a bound, so the dialog still comes soon after the typing stops
        (50, REASK_MAX),
    ],
)
def test_a_dialog_refused_as_typed_ahead_waits_longer_each_time(refused: int, expected: float) -> None:
    assert reask_after(refused, 0.7) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("asked", "answered", "min_read", "expected"),
    [
        (10.0, 10.01, 0.6, True),  # read at once from the typeahead
        (10.0, 10.59, 0.6, True),
        (10.0, 10.7, 0.6, False),  # read, then answered
        (10.0, 10.0, 0.0, False),  # guard off
    ],
)
def test_an_answer_sooner_than_reading_was_typed_ahead(
    asked: float, answered: float, min_read: float, expected: bool
) -> None:
    assert typed_ahead(asked, answered, min_read) is expected


async def test_the_gate_opens_at_once_when_nobody_typed() -> None:
    gate = TypingGate(quiet=30)
    assert not gate.typing()
    await asyncio.wait_for(gate.pause(), 1)


async def test_the_gate_waits_for_a_pause_after_the_last_change() -> None:
    gate = TypingGate(quiet=0.2)
    gate.typed()
    assert gate.typing()
    started = time.monotonic()
    waiting = asyncio.ensure_future(gate.pause())
    typed_again: list[float] = []

    def type_again() -> None:  # runs after the pause's first step: it is waiting when the user types
        assert not waiting.done()
        gate.typed()
        typed_again.append(time.monotonic())

    asyncio.get_running_loop().call_soon(type_again)
    await asyncio.wait_for(waiting, 5)
    assert time.monotonic() - typed_again[0] >= 0.2, "it waited for a pause after the second change"
    assert time.monotonic() - started >= 0.2
    assert not gate.typing()


async def test_asking_again_waits_a_pause_even_without_changes() -> None:
    gate = TypingGate(quiet=0.1)
    started = time.monotonic()
    await asyncio.wait_for(gate.pause(at_least=0.1), 5)
    assert time.monotonic() - started >= 0.1


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    # Every answer sooner than 5 s counts as typed ahead: this client answers at once.
    return {"config": agent_config(model, title_model, permission={"bash": "ask"}), "dialogMinRead": 5}


async def test_an_answer_typed_ahead_is_not_taken_and_the_dialog_asks_again(
    vscode: Connected, model: FakeModelServer
) -> None:
    ran = vscode.root / "ran.txt"
    model.script(Turn.tool_call("bash", {"command": f"touch {ran.name}", "description": "mark"}))
    vscode.editor.dialog_answers.extend(["Allow once"] * 20)
    params = lsp.ExecuteCommandParams(command="agentls.prompt", arguments=["run it"])
    turn = asyncio.ensure_future(vscode.client.workspace_execute_command_async(params))
    await vscode.editor.wait_for(lambda: len(vscode.editor.dialogs) >= 2)
    messages = [m.message for m in vscode.client.messages]
    assert "agentls: keys typed ahead answered nothing; asking again" in messages, messages
    assert not ran.exists(), "an answer typed ahead allowed the command"
    # Stopping the turn ends the dialog too; the command never ran.
    abort = lsp.ExecuteCommandParams(command="agentls.abort", arguments=[])
    await vscode.client.workspace_execute_command_async(abort)
    await asyncio.wait_for(turn, 20)
    assert not ran.exists()
