"""Compaction through the real loop, against the fake model server reporting growing usage."""

from __future__ import annotations

from typing import Any

from core.message.models import AssistantMessage, CompactionPart
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory, HarnessFactory, fake_config


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

    history = await app.messages(session.id)
    summaries = [m for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 1 and summaries[0].info.error is None
    assert any(isinstance(p, CompactionPart) and p.tailStart for m in history for p in m.parts)


async def test_second_compaction_sends_the_previous_summary(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=97_000, output=100),
        Turn.text("FIRST SUMMARY").usage(input=5_000, output=100),
        Turn.text("resumed").usage(input=6_000, output=100),
        Turn.text("answer three").usage(input=40_000, output=100),
        Turn.text("answer four").usage(input=97_000, output=100),
        Turn.text("SECOND SUMMARY").usage(input=5_000, output=100),
        Turn.text("resumed again").usage(input=6_000, output=100),
    )
    for text in ("first", "second", "third", "fourth"):
        await app.prompt(session.id, [TextInput(text=text)])
    assert len(model.requests) == 8
    second = texts(model.requests[6].messages)
    assert model.requests[6].tools == []
    assert "FIRST SUMMARY" in second[-1]  # in the prompt, as the summary to update
    assert "FIRST SUMMARY" not in second[:-1]
    final = texts(model.requests[7].messages)
    assert "SECOND SUMMARY" in final and "FIRST SUMMARY" not in final


async def test_overflow_error_with_auto_off_stops_with_advice(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(compaction={"auto": False})
    session = await app.create_session()
    model.script(Turn.context_overflow())
    answer = await app.prompt(session.id, [TextInput(text="hello")])
    assert len(model.requests) == 1  # no compaction request
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    assert answer.info.error.name == "context-overflow"
    history = await app.messages(session.id)
    assert not any(isinstance(p, CompactionPart) for m in history for p in m.parts)


async def test_summary_that_does_not_fit_stops_after_one_request(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=97_000, output=100),
        Turn.text("word " * 120_000).usage(input=5_000, output=4_000),  # a "summary" far over the limit
    )
    await app.prompt(session.id, [TextInput(text="first")])
    await app.prompt(session.id, [TextInput(text="second")])
    assert len(model.requests) == 3  # one compaction request, never a second
    history = await app.messages(session.id)
    summaries = [m.info for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 1 and summaries[0].error is not None
    assert "compaction" in summaries[0].error.message


async def test_manual_compaction_summarises_without_continuing(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=1_000, output=100),
        Turn.text("answer two").usage(input=2_000, output=100),
        Turn.text("MANUAL SUMMARY").usage(input=500, output=100),
    )
    await app.prompt(session.id, [TextInput(text="first")])
    await app.prompt(session.id, [TextInput(text="second")])
    summary = await app.compact(session.id)
    assert isinstance(summary.info, AssistantMessage) and summary.info.summary
    assert len(model.requests) == 3 and model.requests[2].tools == []
    history = await app.messages(session.id)
    assert not any(p.type == "text" and p.synthetic for m in history for p in m.parts)  # no "continue"
    parts = [p for m in history for p in m.parts if isinstance(p, CompactionPart)]
    assert len(parts) == 1 and parts[0].auto is False


async def test_overflow_error_with_auto_off_says_what_to_do(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(compaction={"auto": False})
    session = await app.create_session()
    model.script(Turn.context_overflow())
    answer = await app.prompt(session.id, [TextInput(text="hello")])
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    assert "compaction.auto" in answer.info.error.message


async def test_preflight_compacts_before_sending_a_request_that_cannot_fit(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    # Usable context: 8,000 - 1,000 = 7,000 tokens. The provider reported small usage, so only the
    # pre-flight estimate of the next request can see that the history (a 12k-token answer) no
    # longer fits.
    app = await make_app(context=8_000, output=1_000, compaction={"tail_turns": 1})
    session = await app.create_session()
    model.script(
        Turn.text("lorem " * 12_000, chunks=20).usage(input=100, output=10),
        Turn.text("SUMMARY: a long text was produced").usage(input=500, output=50),
        Turn.text("second answer").usage(input=300, output=10),
    )
    await app.prompt(session.id, [TextInput(text="write a lot")])
    answer = await app.prompt(session.id, [TextInput(text="second request")])
    assert len(model.requests) == 3
    assert model.requests[1].tools == []  # the compaction request, sent instead of the doomed one
    final = texts(model.requests[2].messages)
    assert any("SUMMARY: a long text" in t for t in final)
    assert not any("lorem lorem" in t for t in final) and "second request" in final
    assert "second answer" in "".join(p.text for p in answer.parts if p.type == "text")


async def test_provider_overflow_error_closes_its_message_with_the_error(
    make_app: AppFactory, make_harness: HarnessFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=1_000, output=100),
        Turn.context_overflow(),  # the provider refuses the second request: 400 prompt too long
        Turn.text("SUMMARY: one question answered").usage(input=500, output=50),
        Turn.text("answer two, after the summary").usage(input=600, output=10),
    )
    await app.prompt(session.id, [TextInput(text="first")])
    answer = await app.prompt(session.id, [TextInput(text="second")])
    assert "answer two" in "".join(p.text for p in answer.parts if p.type == "text")

    def refused(history: list[Any]) -> AssistantMessage:
        [info] = [
            m.info
            for m in history
            if isinstance(m.info, AssistantMessage) and not m.info.summary and m.info.error is not None
        ]
        return info

    live = refused(await app.messages(session.id))
    assert live.time.completed is not None
    assert live.error is not None and live.error.name == "context-overflow"
    await app.close()

    reopened = await make_harness()
    assert reopened.store.recovery is not None and live.id not in reopened.store.recovery.messages
    after = refused(await reopened.agent.messages(session.id))
    assert after.error == live.error and after.time.completed == live.time.completed


async def test_model_configured_for_the_compaction_agent_writes_the_summary(
    make_app: AppFactory, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    provider = fake_config(model, title_model)["provider"]
    provider["fake"]["models"]["summarizer"] = {"limit": {"context": 200_000, "output": 8_000}}
    app = await make_app(provider=provider, agent={"compaction": {"model": "fake/summarizer"}})
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=97_000, output=100),
        Turn.text("SUMMARY BY THE SUMMARIZER").usage(input=5_000, output=100),
        Turn.text("resumed").usage(input=6_000, output=100),
    )
    await app.prompt(session.id, [TextInput(text="first")])
    await app.prompt(session.id, [TextInput(text="second")])
    assert [r.body["model"] for r in model.requests] == ["m", "m", "summarizer", "m"]
    history = await app.messages(session.id)
    [summary] = [m.info for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert summary.modelID == "summarizer" and summary.error is None
