"""authMethods, authenticate and the terminal method (``agentls acp --auth``) under the SDK client."""

from __future__ import annotations

import json
import stat

from tests.acp.conftest import Acp


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


async def test_a_prompt_without_a_key_is_auth_required(acp: Acp) -> None:
    (acp.project / "agentls.json").write_text(json.dumps({"model": "anthropic/claude-sonnet-4-5"}))
    run = await acp.run(
        "blocks", ANTHROPIC_API_KEY="", PROMPTS=json.dumps([[{"type": "text", "text": "hi"}]])
    )
    assert run.failure is None, run.failure
    (answer,) = run.results["answers"]
    assert answer["error"]["code"] == -32000, answer
