"""MCP prompts as slash commands: a real SDK stdio server's prompts listed as
``/mcp__<server>__<prompt>``, their arguments mapped (words, ``name=value``), required ones
checked before anything is sent, and the rendered messages sent as the user's prompt."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from core.errors import AgentError, InvalidInputError
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def servers() -> dict[str, Any]:
    return {"docs": {"type": "local", "command": [sys.executable, str(SERVER)]}}


def last_user_text(model: FakeModelServer) -> str:
    content = [m for m in model.requests[-1].messages if m["role"] == "user"][-1]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


async def test_prompts_are_listed_as_commands_after_the_users(make_app: AppFactory) -> None:
    app = await make_app(mcp=servers(), command={"hello": {"template": "Say hello"}})
    listed = await app.commands()
    names = [c.name for c in listed.commands]
    assert names.index("hello") < names.index("mcp__docs__dialogue") < names.index("mcp__docs__explain")
    assert names[-1].startswith("mcp__")
    explain = next(c for c in listed.commands if c.name == "mcp__docs__explain")
    assert (explain.kind, explain.source, explain.hint) == ("mcp", "mcp:docs", "<symbol> [style]")
    assert explain.description == "Ask the agent to explain a symbol."


@pytest.mark.parametrize(
    ("arguments", "sent"),
    [
        ("add", "Explain the symbol add in a short answer."),
        ("add long", "Explain the symbol add in a long answer."),
        ("style=deep symbol=calc.add", "Explain the symbol calc.add in a deep answer."),
        ("style=deep add", "Explain the symbol add in a deep answer."),
        ('add "very long and careful"', "Explain the symbol add in a very long and careful answer."),
        ("add very long", "Explain the symbol add in a very long answer."),  # the last takes the rest
    ],
)
async def test_a_prompt_runs_with_its_arguments_mapped(
    make_app: AppFactory, model: FakeModelServer, arguments: str, sent: str
) -> None:
    app = await make_app(mcp=servers())
    session = await app.create_session()
    model.script(Turn.text("done"))
    result = await app.run_command(session.id, "mcp__docs__explain", arguments)
    assert result.message is not None
    assert last_user_text(model) == sent


async def test_a_prompt_of_both_roles_says_who_says_what(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(mcp=servers())
    session = await app.create_session()
    model.script(Turn.text("done"))
    await app.run_command(session.id, "/mcp__docs__dialogue", "rust")
    assert last_user_text(model) == "[user]\nTell me about rust.\n\n[assistant]\nWhat do you want to know?"


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("mcp__docs__explain", "", "/mcp__docs__explain needs the argument symbol (usage: "
         "/mcp__docs__explain <symbol> [style]; name=value also works)"),
        ("mcp__docs__explain", "style=deep", "needs the argument symbol"),
        ("mcp__docs__explain", "a b symbol=c style=d e", "takes no more arguments: 'a b e' is left over"),
        ("mcp__docs__nothing", "", "no command /mcp__docs__nothing"),
    ],
)  # fmt: skip
async def test_bad_arguments_are_refused_before_anything_is_sent(
    make_app: AppFactory, model: FakeModelServer, name: str, arguments: str, error: str
) -> None:
    app = await make_app(mcp=servers())
    session = await app.create_session()
    with pytest.raises(AgentError) as caught:
        await app.run_command(session.id, name, arguments)
    assert error in str(caught.value)
    assert model.requests == []
    assert await app.messages(session.id) == []


async def test_a_server_that_refuses_the_prompt_is_a_clear_error(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(mcp=servers())
    session = await app.create_session()
    with pytest.raises(InvalidInputError, match="the MCP server docs refused the prompt broken: "):
        await app.run_command(session.id, "mcp__docs__broken", "no luck")
    assert model.requests == []


async def test_a_disabled_server_offers_no_prompts(make_app: AppFactory) -> None:
    config = servers()
    config["docs"]["enabled"] = False
    app = await make_app(mcp=config)
    assert not [c for c in (await app.commands()).commands if c.kind == "mcp"]
