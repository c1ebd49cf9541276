"""The same server over streamable HTTP (127.0.0.1): its prompt runs as a slash command, its
resource attaches, and its form is asked and answered — the transport changes nothing the user sees."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from core.events import QuestionAsked
from core.message.context_items import McpResourceItem
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.unit.tools.test_mcp import serving

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


async def test_prompts_resources_and_forms_over_streamable_http(
    make_app: AppFactory, model: FakeModelServer, tmp_path: Path
) -> None:
    elicited = tmp_path / "elicited.json"
    async with serving("--http", "/mcp", SERVER, {"DOCS_ELICITED": str(elicited)}) as url:
        app = await make_app(mcp={"web": {"type": "remote", "url": url}}, permission={"web_*": "allow"})
        session = await app.create_session()
        [readme] = await app.resolve_context(None, [McpResourceItem(kind="mcp", uri="docs://readme")])
        assert readme.label == "web:docs://readme" and "use explain for symbols" in readme.text
        model.script(Turn.text("Explained."), Turn.tool_call("web_deploy", {}), Turn.text("Deployed."))
        await app.run_command(session.id, "mcp__web__explain", "add")
        sent = str(model.requests[-1].messages)
        assert "Explain the symbol add in a short answer." in sent
        with app.subscribe(QuestionAsked) as sub:
            turn = asyncio.ensure_future(app.prompt(session.id, [TextInput(text="deploy")]))
            event = await asyncio.wait_for(sub.get(), 30)
            assert isinstance(event, QuestionAsked)
            app.dialogs.answer(event.request.id, [["staging"], ["2"], ["yes"], ["Leave empty"], ["Send"]])
            await asyncio.wait_for(turn, 30)
    assert json.loads(elicited.read_text()) == {
        "action": "accept",
        "data": {"environment": "staging", "replicas": 2, "confirm": True, "note": ""},
    }
