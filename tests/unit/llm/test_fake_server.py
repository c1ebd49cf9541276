"""The fake model server itself: scripting, recording, faults, both protocols, thread mode."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from demo import FakeModelServer, Turn
from demo.fake_script import split


def test_split_cuts_text_into_near_equal_non_empty_pieces() -> None:
    assert split("Hello", 5) == ["H", "e", "l", "l", "o"]
    assert split("Hello", 2) == ["Hel", "lo"]
    assert split("Hi", 10) == ["H", "i"]
    assert split("", 3) == [""]


def test_turn_builders_chain_from_the_class_and_from_an_instance() -> None:
    turn = Turn.reasoning("why", signature="s").text("Hi", chunks=2).tool_call("read", {"a": 1})
    turn.usage(input=3)
    assert [type(s).__name__ for s in turn.steps] == ["ReasoningStep", "TextStep", "ToolCallStep"]
    assert turn.usage_.input == 3
    assert turn.finish_reason() == "tool-calls"
    assert Turn.text("x").finish_reason() == "stop"
    assert Turn.text("x").finish("length").finish_reason() == "length"


async def _sse_lines(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> list[str]:
    async with client.stream("POST", url, json=body) as response:
        assert response.status_code == 200
        return [line async for line in response.aiter_lines() if line]


async def test_openai_stream_carries_text_tool_fragments_usage_and_done(srv: FakeModelServer) -> None:
    turn = Turn.text("Hello", chunks=5).tool_call("read", {"filePath": "a.py"}, fragments=4)
    srv.script(turn.usage(input=7))
    async with httpx.AsyncClient() as client:
        body = {"model": "m", "stream": True, "stream_options": {"include_usage": True}, "messages": []}
        lines = await _sse_lines(client, f"{srv.openai_base}/chat/completions", body)
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(line[6:]) for line in lines[:-1]]
    content = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
    assert [c for c in content if c] == ["H", "e", "l", "l", "o"]
    fragments = [
        c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
        for c in chunks
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    assert "".join(fragments) == '{"filePath": "a.py"}' and len([f for f in fragments if f]) == 4
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["usage"]["prompt_tokens"] == 7


async def test_anthropic_stream_has_the_message_event_sequence(srv: FakeModelServer) -> None:
    srv.script(Turn.reasoning("hm", signature="sig-9").text("ok").tool_call("read", {"filePath": "b"}))
    async with httpx.AsyncClient() as client:
        lines = await _sse_lines(client, f"{srv.base_url}/v1/messages", {"model": "m", "stream": True})
    events = [line[7:] for line in lines if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    assert events.count("content_block_start") == 3 == events.count("content_block_stop")
    data = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    deltas = [d["delta"]["type"] for d in data if d["type"] == "content_block_delta"]
    assert deltas == ["thinking_delta", "signature_delta", "text_delta", "input_json_delta"]
    assert data[-2]["delta"]["stop_reason"] == "tool_use"


async def test_requests_are_recorded_and_unscripted_requests_get_a_clear_500(srv: FakeModelServer) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            f"{srv.openai_base}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"x": 1}]},
            headers={"authorization": "Bearer k"},
        )
    assert response.status_code == 500
    assert "no scripted turn left" in response.json()["error"]["message"]
    [req] = srv.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer k"
    assert req.messages == [{"role": "user", "content": "hi"}] and req.tools == [{"x": 1}]


async def test_non_streaming_answers_are_whole_json_bodies(srv: FakeModelServer) -> None:
    srv.script(Turn.text("A title"), Turn.text("Another").usage(input=4, output=2))
    async with httpx.AsyncClient() as client:
        openai = (await client.post(f"{srv.openai_base}/chat/completions", json={"model": "m"})).json()
        anthropic = (await client.post(f"{srv.base_url}/v1/messages", json={"model": "m"})).json()
    assert openai["choices"][0]["message"]["content"] == "A title"
    assert anthropic["content"] == [{"type": "text", "text": "Another"}]
    assert anthropic["usage"]["input_tokens"] == 4 and anthropic["stop_reason"] == "end_turn"


async def test_fault_answers_with_status_headers_and_an_endpoint_shaped_body(srv: FakeModelServer) -> None:
    srv.script(Turn.fault(429, retry_after="2"), Turn.context_overflow(), Turn.context_overflow())
    async with httpx.AsyncClient() as client:
        limited = await client.post(f"{srv.base_url}/v1/messages", json={})
        openai = await client.post(f"{srv.openai_base}/chat/completions", json={})
        anthropic = await client.post(f"{srv.base_url}/v1/messages", json={})
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert limited.json()["error"]["type"] == "rate_limit_error"
    assert openai.json()["error"]["code"] == "context_length_exceeded"
    assert anthropic.json()["error"]["message"].startswith("prompt is too long")


async def test_slow_first_byte_waits_for_the_test_to_release_it(srv: FakeModelServer) -> None:
    release = asyncio.Event()
    srv.script(Turn.text("late").slow_first_byte(release))
    async with httpx.AsyncClient() as client:
        pending = asyncio.create_task(client.post(f"{srv.openai_base}/chat/completions", json={"model": "m"}))
        await srv.wait_for_requests(1)
        assert not pending.done()
        release.set()
        response = await asyncio.wait_for(pending, 5)
    assert response.json()["choices"][0]["message"]["content"] == "late"


async def test_dropped_connection_breaks_the_chunked_body(srv: FakeModelServer) -> None:
    srv.script(Turn.text("Hello world", chunks=10).drop(after=3))
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await _sse_lines(client, f"{srv.openai_base}/chat/completions", {"model": "m", "stream": True})


def test_threaded_server_serves_synchronous_callers() -> None:
    with FakeModelServer.threaded() as srv:
        srv.script(Turn.text("from a thread"))
        response = httpx.post(f"{srv.openai_base}/chat/completions", json={"model": "m"})
    assert response.json()["choices"][0]["message"]["content"] == "from a thread"
    assert srv.pending == 0
