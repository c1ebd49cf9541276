"""Compaction through the real loop, against the fake model server reporting growing usage."""

from __future__ import annotations

from typing import Any

from core.demo.fake_model import FakeModelServer
from core.demo.fake_script import Turn
from core.session.models import AssistantMessage, CompactionPart
from core.session.prompt_input import TextInput

from .conftest import AppFactory


def texts(messages: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return out


async def test_crossing_the_limit_compacts_once_and_continues_from_summary_and_tail(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()  # limit: context 100,000, output 4,000 → 96,000 usable
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=50_000, output=100),
        Turn.text("answer three").usage(input=97_000, output=100),
        Turn.text("SUMMARY ONE: the user asked three things").usage(input=5_000, output=200),
        Turn.text("continuing after summary").usage(input=6_000, output=100),
    )
    await app.prompt(session.id, [TextInput(text="first request")])
    await app.prompt(session.id, [TextInput(text="second request")])
    answer = await app.prompt(session.id, [TextInput(text="third request")])

    assert len(model.requests) == 5
    compaction = model.requests[3]
    assert compaction.tools == []
    assert "## Objective" in texts(compaction.messages)[-1]
    assert "first request" in texts(compaction.messages)
    assert "second request" not in texts(compaction.messages)  # kept verbatim instead

    after = texts(model.requests[4].messages)
    start = after.index("SUMMARY ONE: the user asked three things")
    assert "first request" not in after
    assert after[start + 1 :] == [
        "second request",
        "answer two",
        "third request",
        "answer three",
        "Continue if you have next steps",
    ]
    assert "continuing after summary" in "".join(p.text for p in answer.parts if p.type == "text")

    history = await app.sessions.messages(session.id)
    summaries = [m for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 1 and summaries[0].info.error is None
    assert any(isinstance(p, CompactionPart) and p.tailStart for m in history for p in m.parts)
