"""authMethods, authenticate and the terminal method (``agentls acp --auth``) under the SDK client."""

from __future__ import annotations

import json
import re
import shlex
import stat
import sys
from pathlib import Path

import pytest

from acp_server.auth_methods import TERMINAL_ARGS
from tests.acp.conftest import Acp
from tests.tmux import Terminal

REPO = Path(__file__).resolve().parents[2]


async def test_a_usable_model_authenticates_and_other_methods_are_refused(acp: Acp) -> None:
    run = await acp.run("auth")
    assert run.failure is None, run.failure
    methods = run.results["initialize"]["authMethods"]
    assert [m["id"] for m in methods] == ["agentls-config"]  # this client runs no terminal methods
    answers = run.results["authenticate"]
    assert answers["agentls-config"] == {}
    assert answers["agentls-auth"]["error"]["code"] == -32602
    assert "agentls acp --auth" in answers["agentls-auth"]["error"]["message"]
    assert answers["nope"]["error"]["code"] == -32602


async def test_no_key_is_auth_required_until_the_terminal_method_stores_one(acp: Acp) -> None:
    (acp.project / "agentls.json").write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5"}))
    run = await acp.run(
        "authFlow",
        ANTHROPIC_API_KEY="",
        TERMINAL_INPUT="anthropic\nsk-ant-from-terminal\n",
        CLIENT_AUTH_TERMINAL="1",
    )
    assert run.failure is None, run.failure
    before = run.results["before"]["error"]
    assert before["code"] == -32000
    assert "ANTHROPIC_API_KEY" in before["message"] and "anthropic/claude-sonnet-4-5" in before["message"]
    assert run.results["terminalExit"] == 0, run.results["terminalOutput"]
    assert "sk-ant-from-terminal" not in run.results["terminalOutput"]
    assert run.results["after"] == {}
    stored = acp.data / "config" / "agentls.json"
    assert json.loads(stored.read_text())["provider"]["anthropic"]["options"]["api_key"] == (
        "sk-ant-from-terminal"
    )
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("flags", "typed"),
    [
        ({"CLIENT_META_TERMINAL_AUTH": "1"}, False),
        ({"CLIENT_META_TERMINAL_AUTH": "1", "CLIENT_AUTH_TERMINAL": "1"}, True),
    ],
)
async def test_a_client_flagging_meta_terminal_auth_runs_the_command_the_method_names(
    acp: Acp, flags: dict[str, str], typed: bool
) -> None:
    (acp.project / "agentls.json").write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5"}))
    run = await acp.run(
        "authFlow", ANTHROPIC_API_KEY="", TERMINAL_INPUT="anthropic\nsk-ant-by-meta\n", **flags
    )
    assert run.failure is None, run.failure
    method = run.results["terminalMethod"]
    assert method["id"] == "agentls-auth"
    # Only a client that declares auth.terminal gets the protocol's terminal type.
    assert (method.get("type") == "terminal") is typed and ("args" in method) is typed
    command = method["_meta"]["terminal-auth"]
    assert command["command"] == sys.executable and command["args"][-1] == "--auth"
    assert command["args"][:2] == ["-m", "acp_server"] and command["label"]
    assert run.results["before"]["error"]["code"] == -32000
    assert run.results["terminalExit"] == 0, run.results["terminalOutput"]
    assert "sk-ant-by-meta" not in run.results["terminalOutput"]
    assert run.results["after"] == {}
    assert "answered early" not in run.stderr  # the early handshake answer and the agent's agree


async def test_a_client_without_either_flag_is_offered_no_terminal_method(acp: Acp) -> None:
    run = await acp.run("auth", CLIENT_AUTH_TERMINAL="")
    assert [m["id"] for m in run.results["initialize"]["authMethods"]] == ["agentls-config"]
    assert all("_meta" not in m for m in run.results["initialize"]["authMethods"])


async def test_a_prompt_without_a_key_is_auth_required(acp: Acp) -> None:
    (acp.project / "agentls.json").write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5"}))
    run = await acp.run(
        "blocks", ANTHROPIC_API_KEY="", PROMPTS=json.dumps([[{"type": "text", "text": "hi"}]])
    )
    assert run.failure is None, run.failure
    (answer,) = run.results["answers"]
    assert answer["error"]["code"] == -32000, answer


def test_the_terminal_method_asks_in_a_real_terminal_and_never_shows_the_key(tmp_path: Path) -> None:
    # What a client's terminal runs for agentls-auth: the agent's command line plus its args.
    config = tmp_path / "config"
    env = {"AGENTLS_CONFIG_DIR": str(config), "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    command = shlex.join([sys.executable, "-m", "acp_server", *TERMINAL_ARGS])
    # The shell keeps the terminal open after the dialog, so its last screen and exit code can be read.
    term = Terminal(["sh", "-c", f"{command}; echo exit=$?; read _"], env, tmp_path)
    try:
        screen = term.wait_text(r"Provider \(number or id\):")
        assert re.search(r"\d+\. anthropic", screen)
        number = re.search(r"(\d+)\. anthropic", screen)
        assert number is not None
        term.type(number.group(1))
        term.send("Enter")
        term.wait_text(r"API key for anthropic \(empty: read it from \$ANTHROPIC_API_KEY\):")
        term.type("sk-ant-typed-secret")
        term.send("Enter")
        term.wait_text(r"exit=0")
        assert re.search(r"saved in .*agentls\.json \(mode 600\)", term.screen().replace("\n", ""))
    finally:
        term.close()
    assert not term.ever("sk-ant-typed-secret"), "the key was echoed"
    stored = config / "agentls.json"
    assert (
        json.loads(stored.read_text())["provider"]["anthropic"]["options"]["api_key"] == "sk-ant-typed-secret"
    )
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
