"""Forking a compacted (and reverted) session: the fork continues exactly where the original would."""

from __future__ import annotations

from core.message.models import CompactionPart, UserMessage
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory


async def test_fork_of_a_compacted_reverted_session_sends_the_same_next_request(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()  # usable context 96,000
    session = await app.create_session()
    model.script(
        Turn.text("answer one").usage(input=30_000, output=100),
        Turn.text("answer two").usage(input=50_000, output=100),
        Turn.text("answer three").usage(input=97_000, output=100),
        Turn.text("SUMMARY: three things were asked").usage(input=5_000, output=100),
        Turn.text("resumed").usage(input=6_000, output=100),
        Turn.text("answer four").usage(input=7_000, output=100),
    )
    for text in ("first", "second", "third", "fourth"):
        await app.prompt(session.id, [TextInput(text=text)])
    history = await app.messages(session.id)
    assert any(isinstance(p, CompactionPart) and p.tailStart for m in history for p in m.parts)
    fourth = next(
        m for m in history if isinstance(m.info, UserMessage) and getattr(m.parts[0], "text", "") == "fourth"
    )
    await app.revert(session.id, fourth.info.id)

    fork = await app.fork_session(session.id)
    assert fork.revert is not None and fork.revert.messageID != fourth.info.id  # remapped to the clone
    clones = await app.messages(fork.id)
    clone_ids = {m.info.id for m in clones}
    assert fork.revert.messageID in clone_ids
    tail_starts = [p.tailStart for m in clones for p in m.parts if isinstance(p, CompactionPart)]
    assert tail_starts and all(t in clone_ids for t in tail_starts)

    model.script(Turn.text("next A").usage(input=7_000, output=10), Turn.text("next B").usage(input=7_000))
    await app.prompt(session.id, [TextInput(text="what now?")])
    await app.prompt(fork.id, [TextInput(text="what now?")])
    original, forked = model.requests[-2], model.requests[-1]
    assert forked.messages == original.messages
    assert forked.tools == original.tools
    conversation = str([m for m in forked.messages if m["role"] != "system"])  # not the system prompt's words
    assert "first" not in conversation and "fourth" not in conversation
