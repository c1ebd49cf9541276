"""The session loop end to end: a real agent, real SQLite, real HTTP to the fake model server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from core.events import FileEdited, MessageUpdated, PartDelta, SessionStatus, SessionUpdated
from core.message.models import AssistantMessage, ToolPart
from core.message.prompt_input import FileInput, TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, HarnessFactory, drain, text_of


def say(text: str) -> list[TextInput]:
    return [TextInput(type="text", text=text)]


async def test_text_answer_streams_deltas_and_records_usage(
    make_harness: HarnessFactory, model: FakeModelServer
) -> None:
    harness = await make_harness()
    app = harness.agent
    model.script(Turn.text("Hello from the model", chunks=4).usage(input=12, output=5))
    session = await app.create_session()
    sub = app.subscribe()
    answer = await app.prompt(session.id, say("hi"))
    assert text_of(answer) == "Hello from the model"
    info = answer.info
    assert isinstance(info, AssistantMessage)
    assert info.finish == "stop" and info.tokens.input == 12 and info.tokens.output == 5
    events = drain(sub)
    deltas = [e.delta for e in events if isinstance(e, PartDelta)]
    assert "".join(deltas) == "Hello from the model" and len(deltas) == 4
    statuses = [e.status.type for e in events if isinstance(e, SessionStatus)]
    assert statuses[0] == "busy" and statuses[-1] == "idle"
    assert not harness.is_busy(session.id)


async def test_multi_step_tool_loop_edits_a_file(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission="allow")  # about the loop, not dialogs
    model.script(
        Turn.text("Reading the file.").tool_call("read", {"filePath": "calc.py"}, fragments=3),
        Turn.tool_call(
            "edit", {"filePath": "calc.py", "oldString": "return a - b", "newString": "return a + b"}
        ),
        Turn.tool_call("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"}),
        Turn.text("Fixed: add now adds."),
    )
    session = await app.create_session()
    edits = app.subscribe(FileEdited)
    answer = await app.prompt(session.id, say("fix add in calc.py"))
    assert text_of(answer) == "Fixed: add now adds."
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    edited = drain(edits)
    assert [Path(e.file).name for e in edited] == ["calc.py"]
    assert edited[0].diff is not None and "+    return a + b" in edited[0].diff
    assert len(model.requests) == 4
    # Each request after a tool call carries the call and its result, in order.
    second = model.requests[1].messages
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read"
    assert "return a - b" in second[-1]["content"]
    fourth = model.requests[3].messages
    assert fourth[-1]["role"] == "tool" and "5" in fourth[-1]["content"]
    history = await app.messages(session.id)
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.tool for t in tools] == ["read", "edit", "bash"]
    assert all(t.state.status == "completed" for t in tools)


async def test_parallel_tool_calls_results_in_call_order(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    (project / "b.txt").write_text("bee\n")
    app = await make_app()
    model.script(
        Turn.tool_call("read", {"filePath": "calc.py"}).tool_call("read", {"filePath": "b.txt"}),
        Turn.text("done"),
    )
    session = await app.create_session()
    await app.prompt(session.id, say("read both"))
    messages = model.requests[1].messages
    calls = messages[-3]["tool_calls"]
    results = messages[-2:]
    assert [c["id"] for c in calls] == [r["tool_call_id"] for r in results]
    assert "return a - b" in results[0]["content"] and "bee" in results[1]["content"]


async def test_malformed_tool_arguments_become_an_error_the_model_reads(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.tool_call("read", '{"filePath": "calc.py"'), Turn.text("sorry"))
    session = await app.create_session()
    answer = await app.prompt(session.id, say("go"))
    assert text_of(answer) == "sorry"
    result = model.requests[1].messages[-1]
    assert result["role"] == "tool" and "invalid arguments" in result["content"]
    assert "Rewrite the input" in result["content"]


async def test_unknown_tool_and_invalid_schema_are_reported_to_the_model(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(
        Turn.tool_call("nope", {}).tool_call("read", {"path": "calc.py"}),
        Turn.text("ok"),
    )
    session = await app.create_session()
    await app.prompt(session.id, say("go"))
    results = [m for m in model.requests[1].messages if m["role"] == "tool"]
    assert "no tool named 'nope'" in results[0]["content"]
    assert "invalid arguments" in results[1]["content"]


async def test_reasoning_is_stored_and_thinking_sent_back_on_anthropic(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(route="anthropic")
    model.script(
        Turn.reasoning("Let me think", chunks=3, signature="sig-1").tool_call(
            "read", {"filePath": "calc.py"}
        ),
        Turn.text("done"),
    )
    session = await app.create_session()
    await app.prompt(session.id, say("think"))
    history = await app.messages(session.id)
    reasoning = [p for m in history for p in m.parts if p.type == "reasoning"]
    assert reasoning[0].text == "Let me think"
    assert reasoning[0].metadata == {"anthropic": {"signature": "sig-1"}}
    assistant = next(m for m in model.requests[1].body["messages"] if m["role"] == "assistant")
    thinking = [b for b in assistant["content"] if b["type"] == "thinking"]
    assert thinking == [{"type": "thinking", "thinking": "Let me think", "signature": "sig-1"}]


async def test_prompt_caching_markers_only_where_honoured(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    anthropic = await make_app(route="anthropic")
    model.script(Turn.text("a"))
    s1 = await anthropic.create_session()
    await anthropic.prompt(s1.id, say("hello"))
    body = json.dumps(model.requests[-1].body)
    assert '"cache_control"' in body
    openai = await make_app()
    model.script(Turn.text("b"))
    s2 = await openai.create_session()
    await openai.prompt(s2.id, say("hello"))
    assert '"cache_control"' not in json.dumps(model.requests[-1].body)


async def test_second_prompt_on_a_busy_session_waits_for_the_same_result(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(Turn.text("first answer").slow_first_byte(release), Turn.text("second answer"))
    session = await app.create_session()
    first = asyncio.create_task(app.prompt(session.id, say("one")))
    await model.wait_for_requests(1)
    first_user = (await app.messages(session.id))[0].info.id
    stored = asyncio.create_task(
        wait_for(app, MessageUpdated, lambda e: e.info.role == "user" and e.info.id > first_user, timeout=10)
    )
    second = asyncio.create_task(app.prompt(session.id, say("two")))
    await stored  # the second message is in the store before the first answer arrives
    release.set()
    a, b = await asyncio.wait_for(asyncio.gather(first, second), timeout=20)
    assert a.info.id == b.info.id and text_of(a) == "second answer"
    # The message that arrived mid-turn reached the model wrapped as a reminder.
    last_user = [m for m in model.requests[1].messages if m["role"] == "user"][-1]
    assert "system-reminder" in last_user["content"][0]["text"] and "two" in last_user["content"][0]["text"]


async def test_title_comes_from_the_small_model_and_falls_back_to_the_prompt(
    make_app: AppFactory, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    app = await make_app()
    title_model.script(Turn.text("Greeting the model\nignored second line"))
    model.script(Turn.text("hi"), Turn.text("hi again"))
    titled = asyncio.create_task(
        wait_for(app, SessionUpdated, lambda e: e.info.title == "Greeting the model", timeout=10)
    )
    session = await app.create_session()
    await app.prompt(session.id, say("hello there"))
    await titled
    # No title turn left: the server answers 500 and the first line of the prompt is used.
    fallback = asyncio.create_task(
        wait_for(app, SessionUpdated, lambda e: e.info.title == "Second session prompt", timeout=10)
    )
    other = await app.create_session()
    await app.prompt(other.id, say("Second session prompt\nwith details"))
    await fallback
    assert title_model.requests[0].body["messages"][-1]["content"][0]["text"] == "hello there"


async def test_the_title_request_waits_for_the_models_first_answer(
    make_app: AppFactory, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    # Sent together, the title went out first and delayed the answer the user waits for.
    app = await make_app()
    release = asyncio.Event()
    model.script(Turn.text("hi").slow_first_byte(release))
    title_model.script(Turn.text("A title"))
    session = await app.create_session()
    turn = asyncio.create_task(app.prompt(session.id, say("hello there")))
    await model.wait_for_requests(1)
    with pytest.raises(TimeoutError):  # held back while the main request waits for its answer
        await title_model.wait_for_requests(1, timeout=0.5)
    titled = asyncio.create_task(
        wait_for(app, SessionUpdated, lambda e: e.info.title == "A title", timeout=10)
    )
    release.set()
    assert text_of(await turn) == "hi"
    await titled


async def test_the_prompts_first_line_is_the_title_until_the_models_arrives(
    make_app: AppFactory, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(Turn.text("hi").slow_first_byte(release))
    title_model.script(Turn.text("A model title"))
    session = await app.create_session()
    assert session.title.startswith("New session - ")
    prompt = "   \n  Why does `add` subtract? " + "x" * 80 + "\nsecond line"
    turn = asyncio.create_task(app.prompt(session.id, say(prompt)))
    await model.wait_for_requests(1)
    # The model has not answered: the session already reads as what the user asked.
    shown = (await app.get_session(session.id)).title
    assert shown.startswith("Why does `add` subtract? xxx") and shown.endswith("…") and len(shown) == 50
    titled = asyncio.create_task(
        wait_for(app, SessionUpdated, lambda e: e.info.title == "A model title", timeout=10)
    )
    release.set()
    await turn
    await titled


async def test_a_turn_that_fails_before_any_answer_is_still_titled(
    make_app: AppFactory, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.fault(401, {"error": {"message": "bad key"}}))
    title_model.script(Turn.text("Failed turn title"))
    titled = asyncio.create_task(
        wait_for(app, SessionUpdated, lambda e: e.info.title == "Failed turn title", timeout=10)
    )
    session = await app.create_session()
    answer = await app.prompt(session.id, say("hello there"))
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    await titled


async def test_attached_file_is_inlined_as_the_read_tool_shows_it(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app()
    model.script(Turn.text("seen"))
    session = await app.create_session()
    await app.prompt(session.id, [TextInput(text="look"), FileInput(path="calc.py")])
    content = model.requests[0].messages[-1]["content"]
    inlined = next(c["text"] for c in content if c["text"].startswith("<file"))
    assert "00001| def add(a, b):" in inlined and "00002|     return a - b" in inlined


async def test_agent_steps_cap_ends_with_a_text_only_step(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(agent={"build": {"steps": 2}})
    model.script(
        Turn.tool_call("read", {"filePath": "calc.py"}), Turn.text("out of steps: here is where I got")
    )
    session = await app.create_session()
    answer = await app.prompt(session.id, say("keep going"))
    assert text_of(answer) == "out of steps: here is where I got"
    assert model.requests[0].tools and not model.requests[1].tools
    last = model.requests[1].messages[-1]["content"][0]["text"]
    assert "maximum number of steps" in last


async def test_switching_from_plan_to_build_adds_the_switch_reminder(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.text("the plan"), Turn.text("building"))
    session = await app.create_session()
    await app.prompt(session.id, say("plan it"), agent="plan")
    await app.prompt(session.id, say("go ahead"), agent="build")
    last_user = [m for m in model.requests[1].messages if m["role"] == "user"][-1]
    texts = [c["text"] for c in last_user["content"]]
    assert any("now work as the build agent" in t for t in texts)
    assert not any("You are the plan agent" in t for t in texts)


async def test_plan_mode_and_the_plan_agent_each_name_their_own_way_out(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.text("a plan"), Turn.text("another plan"))
    by_mode = await app.create_session()
    await app.session_mode(by_mode.id, "plan")
    await app.prompt(by_mode.id, say("plan it"))
    by_agent = await app.create_session()
    await app.session_mode(by_agent.id, "ask")  # a new session starts in the project's last mode
    await app.prompt(by_agent.id, say("plan it"), agent="plan")

    def reminder(request: int) -> str:
        last_user = [m for m in model.requests[request].messages if m["role"] == "user"][-1]
        return next(c["text"] for c in last_user["content"] if "<system-reminder>" in c["text"])

    mode, agent = reminder(0), reminder(1)
    assert "Read-only mode is active" in mode and "You are the plan agent" in agent
    assert "plan_exit" in mode and "plan_exit" in agent
    # Read-only mode is left by changing the mode (or approving a plan): switching agents would not.
    assert "/mode ask" in mode and "the user chose read-only planning" in mode
    assert "Switching agents does not leave read-only mode" in mode
    assert "the build agent then carries it out" in agent and "/mode" not in agent
