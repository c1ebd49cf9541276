"""Instruction URLs through the loop: the fetched text is in the model's system prompt."""

from __future__ import annotations

import json

from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.unit.session.test_instruction_urls import Site, site  # noqa: F401  (the fixture)

from .conftest import AppFactory


async def test_a_url_in_instructions_reaches_the_system_prompt(
    make_app: AppFactory,
    model: FakeModelServer,
    site: Site,  # noqa: F811
) -> None:
    good, missing = f"{site.base}/rules.md", f"{site.base}/missing.md"
    app = await make_app(instructions=[good, missing])
    session = await app.create_session()
    model.script(Turn.text("one"), Turn.text("two"))
    await app.prompt(session.id, [TextInput(text="hi")])
    await app.prompt(session.id, [TextInput(text="again")])
    for request in model.requests:
        system = json.dumps(request.system)
        assert f"Instructions from: {good}" in system and "rules from /rules.md" in system
        assert missing not in system
    assert site.hits == {"/rules.md": 1, "/missing.md": 1}  # fetched once for both turns
