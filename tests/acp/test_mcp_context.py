"""An MCP server's resources and prompts over ACP (official SDK client, real ``agentls acp``, the
real SDK stdio server of the project's config): a ``resource_link`` to one of its resources (or to
a URI its template makes) reaches the model as the editors' ``@server:uri`` does, a binary one is
refused with the reason, a link no server has stays the link's text; its prompts are commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from demo.fake_script import Turn
from tests.acp.conftest import Acp
from tests.acp.test_attachments import user_text

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def _link(uri: str) -> dict[str, Any]:
    return {"type": "resource_link", "uri": uri, "name": uri}


def _with_docs_server(acp: Acp) -> None:
    config = json.loads((acp.project / "agentls.json").read_text())
    config["mcp"] = {"docs": {"type": "local", "command": [sys.executable, str(SERVER)]}}
    (acp.project / "agentls.json").write_text(json.dumps(config))


async def test_resource_links_to_an_mcp_server_reach_the_model(acp: Acp) -> None:
    _with_docs_server(acp)
    prompts = [
        [
            {"type": "text", "text": "Read these."},
            _link("docs://readme"),
            _link("notes://plan"),
            _link("docs://logo"),
            _link("other://thing"),
        ],
        [{"type": "text", "text": "/mcp__docs__explain add style=long"}],
    ]
    acp.model.script(Turn.text("Read."), Turn.text("Explained."))
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    assert run.results["answers"] == [{"stopReason": "end_turn"}, {"stopReason": "end_turn"}]

    sent = user_text(acp.model.requests[0].body)
    assert '<mcp-resource server="docs" uri="docs://readme"' in sent and "use explain for symbols" in sent
    assert "The note called plan." in sent  # a URI the server's template makes
    assert "docs://logo, but it could not be attached: docs:docs://logo is binary (image/png)" in sent
    assert "other://thing" in sent  # no server has it: the link as text
    assert user_text(acp.model.requests[1].body).endswith("Explain the symbol add in a long answer.")

    listed = [c["name"] for u in run.updates("available_commands_update") for c in u["availableCommands"]]
    assert "mcp__docs__explain" in listed


def _with_eliciting_server(acp: Acp) -> Path:
    elicited = acp.project / "elicited.json"  # in the project: the server's sandbox may write there
    config = json.loads((acp.project / "agentls.json").read_text())
    env = {"DOCS_ELICITED": str(elicited)}
    config["mcp"] = {"docs": {"type": "local", "command": [sys.executable, str(SERVER)], "environment": env}}
    config["permission"] = {**config.get("permission", {}), "docs_*": "allow"}
    (acp.project / "agentls.json").write_text(json.dumps(config))
    return elicited


async def test_an_mcp_servers_form_is_an_acp_form_and_its_answers_reach_the_server(acp: Acp) -> None:
    elicited = _with_eliciting_server(acp)
    acp.model.script(Turn.tool_call("docs_deploy", {}), Turn.text("Deployed."))
    content = {"q1": "production", "q2": "3", "q3": "yes", "q4": "Leave empty", "q5": "Send"}
    run = await acp.run(
        "turn", PROMPT="deploy", FORM_ANSWERS=json.dumps([{"action": "accept", "content": content}])
    )
    assert run.failure is None, run.failure
    (form,) = [e["params"] for e in run.log if e["kind"] == "form"]
    fields = form["requestedSchema"]["properties"]
    assert [o["const"] for o in fields["q1"]["oneOf"]] == ["staging", "production"]
    assert [o["const"] for o in fields["q5"]["oneOf"]] == ["Send", "Decline"]
    assert json.loads(elicited.read_text()) == {
        "action": "accept",
        "data": {"environment": "production", "replicas": 3, "confirm": True, "note": ""},
    }


async def test_an_acp_client_without_forms_declines_and_the_server_is_told(acp: Acp) -> None:
    elicited = _with_eliciting_server(acp)
    acp.model.script(Turn.tool_call("docs_deploy", {}), Turn.text("Not deployed."))
    run = await acp.run("turn", PROMPT="deploy")
    assert run.failure is None, run.failure
    assert json.loads(elicited.read_text()) == {"action": "decline", "data": None}
    assert "not deployed: decline" in json.dumps(acp.model.requests[-1].messages)
