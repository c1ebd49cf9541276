"""Compaction through the real loop, against the fake model server reporting growing usage."""

from __future__ import annotations

from typing import Any

from core.demo.fake_model import FakeModelServer
from core.demo.fake_script import Turn
from core.session.models import AssistantMessage, CompactionPart
from core.session.prompt_input import TextInput

from .conftest import AppFactory

SUMMARY_HEADING = "## Objective"


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(c.get("text", "") for c in content if isinstance(c, dict))
    return out


async def test_crossing_the_limit_compacts_once_and_continues_from_summary_and_tail(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=50_000, output=100),
        Turn.text("answer three").usage(input=97_000, output=100),  # over 96,000 usable
        Turn.text("SUMMARY ONE: the user asked three things").usage(input=5_000, output=200),
        Turn.text("continuing after summary").usage(input=6_000, output=100),
    )
    await app.prompt(session.id, [TextInput(text="first request")])
    await app.prompt(session.id, [TextInput(text="second request")])
    answer = await app.prompt(session.id, [TextInput(text="third request")])

    assert len(model.requests) == 5, [r.messages[-1] for r in model.requests]
    compaction = model.requests[3]
    assert compaction.tools == []
    assert SUMMARY_HEADING in user_texts(compaction.messages)[-1]
    after = model.requests[4]
    texts = user_texts(after.messages)
    assert any("SUMMARY ONE" in t for t in texts)
    assert "first request" not in texts  # summarised away
    assert "second request" in texts and "third request" in texts  # the tail
    assert "Continue if you have next steps" in texts
    assert "continuing after summary" in "".join(p.text for p in answer.parts if p.type == "text")
    history = await app.sessions.messages(session.id)
    summaries = [m for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 1 and summaries[0].info.error is None
    assert any(isinstance(p, CompactionPart) and p.tailStart for m in history for p in m.parts)
