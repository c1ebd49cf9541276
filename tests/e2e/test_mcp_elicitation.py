"""An MCP server's elicitation as a form: the real SDK stdio server's ``deploy`` tool asks for its
settings while the model calls it; each field is a question of the dialog every client shows (an
enum's values, yes/no, typed numbers checked against the bounds and asked again with the reason),
and what the user chose — the answers, a decline, a dismissed form — reaches the server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from core.api import Agent
from core.events import QuestionAsked, QuestionRequest
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def servers(elicited: Path) -> dict[str, Any]:
    # ``elicited``: in the project, which the server's sandbox lets it write
    command = [sys.executable, str(SERVER)]
    return {"docs": {"type": "local", "command": command, "environment": {"DOCS_ELICITED": str(elicited)}}}


async def asked(app: Agent, sub: Any) -> QuestionRequest:
    event = await asyncio.wait_for(sub.get(), 10)
    assert isinstance(event, QuestionAsked)
    return event.request


async def deploy(make_app: AppFactory, model: FakeModelServer, project: Path) -> tuple[Agent, Any, Any]:
    app = await make_app(mcp=servers(project / "elicited.json"), permission={"docs_*": "allow"})
    session = await app.create_session()
    model.script(Turn.tool_call("docs_deploy", {}), Turn.text("Done."))
    sub = app.subscribe(QuestionAsked)
    turn = asyncio.ensure_future(app.prompt(session.id, [TextInput(text="deploy it")]))
    return app, sub, turn


def tool_output(model: FakeModelServer) -> str:
    return json.dumps([m for m in model.requests[-1].messages if m["role"] == "tool"])


async def test_the_form_is_asked_checked_and_its_answers_reach_the_server(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app, sub, turn = await deploy(make_app, model, project)
    with sub:
        form = await asked(app, sub)
        environment, replicas, confirm, note, send = form.questions
        assert [o.label for o in environment.options] == ["staging", "production"]
        assert environment.header == "environment" and "Where to deploy" in environment.question
        assert replicas.options == [] and "How many replicas" in replicas.question
        assert [o.label for o in confirm.options] == ["yes", "no"]
        assert [o.label for o in note.options] == ["Leave empty"]  # optional
        assert send.question == "The MCP server docs asks: Deploy settings"
        assert [o.label for o in send.options] == ["Send", "Decline"]
        app.dialogs.answer(form.id, [["production"], ["20"], ["yes"], ["Leave empty"], ["Send"]])
        again = await asked(app, sub)  # 20 is above the schema's maximum: asked again, with why
        [replicas_again, _] = again.questions
        assert "20 is more than 10; answer again" in replicas_again.question
        app.dialogs.answer(again.id, [["3"], ["Send"]])
        await asyncio.wait_for(turn, 30)
    got = json.loads((project / "elicited.json").read_text())
    assert got == {
        "action": "accept",
        "data": {"environment": "production", "replicas": 3, "confirm": True, "note": ""},
    }
    assert "deployed to production with 3 replicas" in tool_output(model)


@pytest.mark.parametrize("how", ["decline", "dismiss"])
async def test_a_declined_or_dismissed_form_tells_the_server(
    make_app: AppFactory, model: FakeModelServer, project: Path, how: str
) -> None:
    app, sub, turn = await deploy(make_app, model, project)
    with sub:
        form = await asked(app, sub)
        if how == "decline":
            app.dialogs.answer(form.id, [["staging"], ["1"], ["no"], [], ["Decline"]])
        else:
            app.dialogs.dismiss(form.id)
        await asyncio.wait_for(turn, 30)
    assert json.loads((project / "elicited.json").read_text()) == {"action": "decline", "data": None}
    assert "not deployed: decline" in tool_output(model)
