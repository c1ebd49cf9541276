"""``agent.warning`` reaches an ACP client as a line of the agent's message (ACP has no notice)."""

from __future__ import annotations

import json

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_a_warning_is_a_line_of_the_agents_message(acp: Acp) -> None:
    config_file = acp.project / "agentls.json"
    config = json.loads(config_file.read_text())
    config["small_model"] = "openai/nowhere"  # no OPENAI_API_KEY here: no model for the title
    config_file.write_text(json.dumps(config))
    acp.model.script(
        Turn.tool_call("read", {"filePath": "hello.py"}),
        Turn.text("It prints hello."),
    )
    run = await acp.run("turn", PROMPT="what does hello.py do?")
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    text = run.text()
    assert "> Warning: no small model" in text and "nowhere" in text
    assert text.rstrip().endswith("It prints hello.")
