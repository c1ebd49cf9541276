"""``agentls acp`` in a project not trusted yet whose agentls.json names an MCP server, under a client
built on the official ACP SDK: the first prompt asks with ``session/request_permission`` before the
turn runs and nothing of the project's starts before the answer; "Trust this project" starts its MCP
server and is remembered; "Not now" never starts it, and the turn runs on the user's own config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.project_trust import store as trust_store
from demo.fake_script import Turn
from tests.acp.conftest import Acp


def untrusted_project(acp: Acp) -> Path:
    """Move the model config to the user's config; the project's own file names an MCP server."""
    # In the project: the MCP server runs sandboxed (workspace-write), where only the project is writable.
    marker = acp.project / "mcp-started"
    script = f"open({str(marker)!r}, 'w').write('ran')"
    user = acp.data / "config"
    user.mkdir(parents=True, exist_ok=True)
    (user / "agentls.json").write_text((acp.project / "agentls.json").read_text())
    own = {
        "mcp": {"repo-tool": {"type": "local", "command": [sys.executable, "-c", script]}},
        "provider": {"fake": {"models": {"from-the-repo": {}}}},
    }
    (acp.project / "agentls.json").write_text(json.dumps(own))
    trust_store.revoke(acp.data, acp.project)
    return marker


# A project the user has not trusted is never attached to the host (its agent would read the
# project's own config that this front end holds back; docs/host.md): it stays in-process.
UNTRUSTED_STAYS = "an untrusted project's agent runs in-process (docs/host.md)"


@pytest.mark.parametrize(
    "pick", ["Trust this project", pytest.param("Not now", marks=pytest.mark.in_process(UNTRUSTED_STAYS))]
)
async def test_the_first_prompt_asks_before_the_project_s_files_are_used(acp: Acp, pick: str) -> None:
    marker = untrusted_project(acp)
    acp.model.script(Turn.text("Answered."))
    run = await acp.run("turn", PICKS=json.dumps([pick]), MARKER=str(marker))
    assert run.failure is None, run.stderr[-3000:]
    asked = [e["params"] for e in run.log if e["kind"] == "permission"]
    assert len(asked) == 1, asked
    call = asked[0]["toolCall"]
    assert call["title"] == f"Trust the project {acp.project.name}?"
    assert "agentls.json" in call["content"][0]["content"]["text"]
    assert [o["name"] for o in asked[0]["options"]] == ["Trust this project", "Not now"]
    seen = [e["exists"] for e in run.log if e["kind"] == "marker-while-asked"]
    assert seen == [False], "the project's MCP server started before the answer"
    assert run.text() == "Answered."
    assert run.results["prompt"]["stopReason"] == "end_turn"
    assert marker.exists() is (pick == "Trust this project")
    assert trust_store.is_trusted(acp.data, acp.project) is (pick == "Trust this project")
    # The session's options as session/new gave them (the user's config), then as the trusted
    # project's config gives them (its own model among them).
    first = json.dumps(run.results["session"]["configOptions"])
    later = [json.dumps(u["configOptions"]) for u in run.updates("config_option_update")]
    assert "fake/from-the-repo" not in first
    assert any("fake/from-the-repo" in u for u in later) is (pick == "Trust this project")


async def test_a_trusted_project_is_not_asked_about(acp: Acp) -> None:
    marker = untrusted_project(acp)
    trust_store.add(acp.data, acp.project)
    acp.model.script(Turn.text("Answered."))
    run = await acp.run("turn")
    assert run.failure is None, run.stderr[-3000:]
    assert [e for e in run.log if e["kind"] == "permission"] == []
    assert run.text() == "Answered." and marker.exists()


@pytest.mark.in_process(UNTRUSTED_STAYS)
async def test_a_client_that_cannot_ask_leaves_the_project_untrusted_and_the_turn_runs(acp: Acp) -> None:
    marker = untrusted_project(acp)
    acp.model.script(Turn.text("Answered with your own config."))
    run = await acp.run("turn", PERMISSION_FAIL="1")
    assert run.failure is None, run.stderr[-3000:]
    assert [e["kind"] for e in run.log].count("permission") == 1
    assert run.text() == "Answered with your own config."
    assert not marker.exists() and not trust_store.is_trusted(acp.data, acp.project)
    assert "could not ask whether to trust" in run.stderr
