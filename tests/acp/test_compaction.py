"""An automatic compaction is announced to the ACP client: "Compacting…", then the tokens before and
after; the summary streams as a thought (context for the model, not an answer), live and on load."""

from __future__ import annotations

import json
import re

from demo.fake_script import Turn
from tests.acp.conftest import Acp, Run

SUMMARY = "SUMMARY ONE: the user asked three things"


def _script(acp: Acp) -> None:
    # The fake model's context is 100,000 tokens: the third answer's usage crosses the limit.
    acp.model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=50_000, output=100),
        Turn.text("answer three").usage(input=97_000, output=100),
        Turn.text(SUMMARY).usage(input=5_000, output=200),
        Turn.text("continuing after summary").usage(input=6_000, output=100),
    )


def _said(run: Run) -> str:
    return run.text()


async def test_an_automatic_compaction_is_announced_with_its_token_counts(acp: Acp) -> None:
    _script(acp)
    prompts = ["first request", "second request", "third request"]
    run = await acp.run("options", CONFIG="[]", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    said = _said(run)
    assert SUMMARY not in said and SUMMARY in run.text("agent_thought_chunk")
    start = said.index("Compacting the conversation…")
    done = re.search(
        r"Compacted the conversation: ([\d,]+) → ([\d,]+) tokens \(the context was nearly full", said
    )
    assert done is not None, said
    before, after = (int(n.replace(",", "")) for n in done.groups())
    assert before >= 97_000 > after > 0
    assert said.index("answer three") < start < done.start() < said.index("continuing after summary")
    # The summary's own request is not the conversation's context: no usage update says 5,200.
    assert 5_200 not in [u["used"] for u in run.updates("usage_update")]

    session_id = run.results["session"]["sessionId"]
    acp.model.script(Turn.text("Still here."))
    loaded = await acp.run("load", SESSION_ID=session_id, PROMPT="still there?")
    assert loaded.failure is None, loaded.failure
    replay = [e["update"] for e in loaded.log[: loaded.kinds.index("loaded")] if e["kind"] == "update"]
    thoughts = "".join(u["content"]["text"] for u in replay if u["sessionUpdate"] == "agent_thought_chunk")
    answers = "".join(u["content"]["text"] for u in replay if u["sessionUpdate"] == "agent_message_chunk")
    assert SUMMARY in thoughts and SUMMARY not in answers
    assert "Compacted the conversation" in answers
