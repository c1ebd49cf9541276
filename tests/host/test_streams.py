"""Many sessions streaming through one host at once: each keeps its own text, every front end sees
each part's text whole and in order; and the host's broadcast that merges the deltas of a frame."""

from __future__ import annotations

import asyncio
import socket
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.bus import Bus
from core.events import ConfigUpdated, Event, PartDelta, PartUpdated, SessionIdle
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from core.remote.connection import Connection
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from host.broadcast import FRAME, Broadcast

from .conftest import HostProcess, attach_as

SESSIONS = 10
DELTAS = 300


def _answer(tag: int) -> str:
    return "".join(f"<{tag}:{i}>" for i in range(DELTAS))


async def test_ten_sessions_stream_at_once_each_with_its_own_text(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    agents = [await attach_as(front_ends, project, data_dir, f"editor {i}") for i in range(SESSIONS)]
    seen: list[list[Event]] = [[] for _ in agents]
    for agent, events in zip(agents, seen, strict=True):
        agent.listen(events.append)
    sessions = [await agent.create_session() for agent in agents]
    model.script(*(Turn.text(_answer(tag), chunks=DELTAS) for tag in range(SESSIONS)))
    title_model.script(*(Turn.text("A title") for _ in range(SESSIONS)))

    answers = await asyncio.wait_for(
        asyncio.gather(
            *(
                agent.prompt(session.id, [TextInput(text="stream")])
                for agent, session in zip(agents, sessions, strict=True)
            )
        ),
        120,
    )

    texts: dict[str, str] = {}  # session id -> its text part's text
    part_of: dict[str, str] = {}  # text part id -> its session
    for session, reply in zip(sessions, answers, strict=True):
        [stored] = [m for m in await agents[0].messages(session.id) if m.info.id == reply.info.id]
        assert all(p.sessionID == session.id and p.messageID == reply.info.id for p in stored.parts)
        [text] = [p for p in stored.parts if p.type == "text"]
        texts[session.id] = text.text
        part_of[text.id] = session.id
    assert sorted(texts.values()) == sorted(_answer(tag) for tag in range(SESSIONS))  # each one once

    for events in seen:
        streamed: dict[str, list[str]] = defaultdict(list)
        ended: set[str] = set()
        for event in events:
            if isinstance(event, PartDelta):
                assert event.partID not in ended, "a delta came after its part's final update"
                assert part_of[event.partID] == event.sessionID
                streamed[event.sessionID].append(event.delta)
            elif isinstance(event, PartUpdated) and event.part.id in part_of and _finished(event):
                ended.add(event.part.id)
        assert {sid: "".join(parts) for sid, parts in streamed.items()} == texts
        assert ended == set(part_of)


def _finished(event: PartUpdated) -> bool:
    """Whether the update is a text part's last (its end time set)."""
    part = event.part
    return part.type == "text" and part.time is not None and part.time.end is not None


class _Ends:
    """A real connection pair over a socket pair: the host's end and what the other end received."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.arrived = asyncio.Event()
        self.host: Connection
        self.front: Connection

    async def open(self) -> _Ends:
        host_socket, front_socket = socket.socketpair()
        host_reader, host_writer = await asyncio.open_unix_connection(sock=host_socket)
        front_reader, front_writer = await asyncio.open_unix_connection(sock=front_socket)
        self.host = Connection(host_reader, host_writer, _no_requests, lambda _m, _p: None)
        self.front = Connection(front_reader, front_writer, _no_requests, self._notified)
        self.front.start()
        return self

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        self.received.append((method, params))
        self.arrived.set()

    async def wait_for(self, count: int) -> list[tuple[str, dict[str, Any]]]:
        async with asyncio.timeout(10):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.received

    def close(self) -> None:
        self.host.close()
        self.front.close()


async def _no_requests(method: str, _params: dict[str, Any]) -> None:
    raise AssertionError(f"no request expected, got {method}")


@pytest.fixture
async def ends() -> AsyncIterator[list[_Ends]]:
    opened: list[_Ends] = []
    yield opened
    for pair in opened:
        pair.close()


def _delta(part: str, text: str) -> PartDelta:
    return PartDelta(sessionID="ses_1", messageID="msg_1", partID=part, field="text", delta=text)


def _events(received: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    """(type, delta or session) of each ``event`` notification."""
    out = []
    for method, params in received:
        assert method == "event" and params["project"] == "p1"
        props = params["properties"]
        out.append((params["type"], props.get("delta") or props.get("sessionID")))
    return out


async def test_the_deltas_of_a_frame_go_out_merged_and_before_the_next_event(ends: list[_Ends]) -> None:
    bus = Bus()
    first = await _Ends().open()
    ends.append(first)
    broadcast = Broadcast("p1", bus, lambda _conn: {}, lambda _conn, properties: properties)
    broadcast.add(first.host)
    for piece in ("a", "b", "c"):
        bus.publish(_delta("prt_a", piece))
    bus.publish(_delta("prt_b", "x"))
    bus.publish(_delta("prt_a", "d"))
    bus.publish(SessionIdle(sessionID="ses_1"))
    received = await first.wait_for(3)
    assert _events(received) == [
        ("message.part.delta", "abcd"),
        ("message.part.delta", "x"),
        ("session.idle", "ses_1"),
    ]
    delta = received[0][1]["properties"]
    assert delta == {
        "sessionID": "ses_1",
        "messageID": "msg_1",
        "partID": "prt_a",
        "field": "text",
        "delta": "abcd",
    }

    # Alone, a delta goes out when its frame ends.
    started = asyncio.get_running_loop().time()
    bus.publish(_delta("prt_a", "e"))
    assert _events((await first.wait_for(4))[3:]) == [("message.part.delta", "e")]
    assert asyncio.get_running_loop().time() - started >= FRAME * 0.9
    broadcast.stop()


async def test_a_front_end_that_attaches_gets_only_later_deltas_and_a_removed_one_none(
    ends: list[_Ends],
) -> None:
    bus = Bus()
    first, second = await _Ends().open(), await _Ends().open()
    ends.extend([first, second])
    # Each front end's facts and config.updated are its own view's (host/views.py).
    broadcast = Broadcast(
        "p1",
        bus,
        lambda conn: {"config_info": "new", "to": "second" if conn is second.host else "first"},
        lambda conn, properties: {**properties, "defaultModel": "fake/mine" if conn is second.host else None},
    )
    remove_first = broadcast.add(first.host)
    bus.publish(_delta("prt_a", "before"))
    broadcast.add(second.host)  # the waiting delta goes to the first only, at once
    bus.publish(_delta("prt_a", "after"))
    broadcast.flush()
    assert _events(await first.wait_for(2)) == [
        ("message.part.delta", "before"),
        ("message.part.delta", "after"),
    ]
    assert _events(await second.wait_for(1)) == [("message.part.delta", "after")]

    remove_first()
    bus.publish(ConfigUpdated(changed=["model"], agents=[], models=[], defaultAgent="build", modelLimits={}))
    [event, facts] = (await second.wait_for(3))[1:]
    assert event[1]["type"] == "config.updated"
    assert event[1]["properties"]["defaultModel"] == "fake/mine"
    assert facts == ("facts", {"project": "p1", "facts": {"config_info": "new", "to": "second"}})
    bus.publish(SessionIdle(sessionID="ses_1"))
    await second.wait_for(4)
    assert len(first.received) == 2  # removed: nothing more
    broadcast.stop()
