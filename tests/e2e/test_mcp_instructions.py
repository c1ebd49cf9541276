"""The instructions MCP servers give at initialize, through the loop to the model: after the
project's instructions, the same bytes at every step, nothing from a server that gives none or
whose tools the agent may not use."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "echo_server.py"
DOCS = "Call docs_echo with the symbol's name before you explain it."


def servers() -> dict[str, Any]:
    echo = [sys.executable, str(SERVER)]
    return {
        "docs": {"type": "local", "command": echo, "environment": {"ECHO_INSTRUCTIONS": DOCS}},
        "plain": {"type": "local", "command": echo},
    }


def context_of(request: Any) -> str:
    """The second system message: the project's context."""
    system = request.system
    return str(system[-1]["content"] if isinstance(system[-1], dict) else system[-1])


async def test_a_servers_instructions_reach_every_step_after_the_projects(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Project rule: be brief.\n")
    app = await make_app(mcp=servers())
    session = await app.create_session()
    model.script(Turn.tool_call("plain_echo", {"text": "hi"}), Turn.text("one"), Turn.text("two"))
    await app.prompt(session.id, [TextInput(text="hi")])
    await app.prompt(session.id, [TextInput(text="again")])

    assert len(model.requests) == 3
    contexts = {json.dumps(r.system) for r in model.requests}
    assert len(contexts) == 1  # byte-stable across steps and turns: the prompt cache holds
    context = context_of(model.requests[0])
    assert context.index("Project rule: be brief.") < context.index(
        f"Instructions from the MCP server docs:\n{DOCS}"
    )
    assert "MCP server plain" not in context  # it gives none, and adds nothing


async def test_a_server_whose_tools_are_denied_adds_no_instructions(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(mcp=servers(), permission={"docs_*": "deny"})
    session = await app.create_session()
    model.script(Turn.text("ok"))
    await app.prompt(session.id, [TextInput(text="hi")])
    tools = {t["function"]["name"] for t in model.requests[0].tools}
    assert "plain_echo" in tools and not any(t.startswith("docs_") for t in tools)
    assert "MCP server docs" not in context_of(model.requests[0])
