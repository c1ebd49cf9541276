"""Long turns: compacting as often as the history overflows, never looping, and clear dead ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.context.tokens import TokenCounter
from core.message.models import AssistantMessage
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory, HarnessFactory, text_of


def texts(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages)


async def test_a_second_overflow_in_one_turn_compacts_again_and_the_turn_finishes(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()  # usable context: 100,000 - 4,000
    session = await app.create_session()
    model.script(
        Turn.tool_call("read", {"filePath": "calc.py"}).usage(input=97_000, output=100),
        Turn.text("SUMMARY ONE").usage(input=5_000, output=100),
        Turn.tool_call("glob", {"pattern": "*.py"}).usage(input=30_000, output=100),
        Turn.tool_call("read", {"filePath": "calc.py", "offset": 1}).usage(input=97_000, output=100),
        Turn.text("SUMMARY TWO").usage(input=5_000, output=100),
        Turn.text("all done").usage(input=8_000, output=10),
    )
    answer = await app.prompt(session.id, [TextInput(text="a long task")])
    assert len(model.requests) == 6
    assert [bool(r.tools) for r in model.requests] == [True, False, True, True, False, True]
    assert "SUMMARY ONE" in texts(model.requests[4].messages)  # the second summary updates the first
    final = texts(model.requests[5].messages)
    assert "SUMMARY TWO" in final and "SUMMARY ONE" not in final
    assert text_of(answer) == "all done"
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is None
    history = await app.messages(session.id)
    summaries = [m.info for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 2 and all(s.error is None for s in summaries)


async def test_overflow_right_after_a_compaction_ends_the_turn_with_a_typed_error(
    make_harness: HarnessFactory, model: FakeModelServer
) -> None:
    harness = await make_harness()
    app = harness.agent
    session = await app.create_session()
    model.script(
        Turn.tool_call("read", {"filePath": "calc.py"}).usage(input=97_000, output=100),
        Turn.text("SUMMARY").usage(input=5_000, output=100),
        # The provider still counts the compacted request as over the limit: compacting again
        # could only summarise the summary, forever.
        Turn.tool_call("read", {"filePath": "calc.py", "offset": 2}).usage(input=97_000, output=100),
        Turn.text("never sent"),
    )
    answer = await app.prompt(session.id, [TextInput(text="a long task")])
    assert len(model.requests) == 3
    info = answer.info
    assert isinstance(info, AssistantMessage) and info.error is not None
    assert info.error.name == "context-overflow"
    assert "compaction" in info.error.message and "new session" in info.error.message
    assert info.time.completed is not None
    assert not harness.is_busy(session.id)


async def test_a_prompt_bigger_than_the_window_gets_a_clear_error_not_a_summary(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(context=8_000, output=1_000)
    session = await app.create_session()
    answer = await app.prompt(session.id, [TextInput(text="lorem " * 9_000)])
    assert model.requests == []  # neither the doomed request nor a summary of the prompt itself
    info = answer.info
    assert isinstance(info, AssistantMessage) and info.error is not None
    assert info.error.name == "context-overflow"
    expected = "this prompt alone exceeds the model's context window of 8,000 tokens"
    assert expected in info.error.message.lower()
    history = await app.messages(session.id)
    assert not any(isinstance(m.info, AssistantMessage) and m.info.summary for m in history)


async def test_compaction_leaves_room_for_the_system_prompt_and_tool_schemas(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    # Usable: 8,000 - 500 = 7,500. The system prompt and the tools take about 4,300 tokens, so a
    # 3,500-token turn kept verbatim would fit beside the summary only if they were not counted.
    (project / "AGENTS.md").write_text("Keep answers short.\n")
    harness = await make_harness(context=8_000, output=500, compaction={"tail_turns": 2})
    app = harness.agent
    session = await app.create_session()
    model.script(
        Turn.text("lorem " * 1_500).usage(input=100, output=10),
        Turn.text("ipsum " * 3_500).usage(input=100, output=10),
        Turn.text("SUMMARY: two long answers").usage(input=100, output=10),
        Turn.text("third answer").usage(input=100, output=10),
    )
    await app.prompt(session.id, [TextInput(text="first")])
    await app.prompt(session.id, [TextInput(text="second")])
    answer = await app.prompt(session.id, [TextInput(text="third")])
    assert len(model.requests) == 4 and model.requests[2].tools == []
    assert text_of(answer) == "third answer"
    last = model.requests[3]
    assert "ipsum ipsum" not in texts(last.messages)  # summarised, not kept: it could not fit
    counter = TokenCounter.for_model(harness.wiring.choice.resolve("fake/m"))
    system = [str(m["content"]) for m in last.messages if m["role"] == "system"]
    rest = [m for m in last.messages if m["role"] != "system"]
    assert counter.estimate_request(system, rest, last.tools) <= 7_500
