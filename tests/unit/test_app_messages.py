"""``Agent.messages``: a page when a limit is given, the whole transcript when none is — as
``agent/session/messages`` documents (a client that asks without ``limit`` gets every message)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.api import Agent
from tests.harness import Harness, running_agent
from tests.unit.storage.factories import user


@pytest.fixture
async def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    for name, value in {"AGENTLS_CONFIG_DIR": "config", "HOME": "home"}.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    (tmp_path / "project").mkdir()
    config = {"model": "fake/m", "snapshot": False, "provider": {"fake": {}}}
    async with running_agent(tmp_path / "project", config=config, data_dir=tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def app(harness: Harness) -> Agent:
    return harness.agent


async def stored(harness: Harness, count: int) -> tuple[str, list[str]]:
    session = await harness.agent.create_session()
    ids = []
    for _ in range(count):
        message = user(session.id)
        await harness.sessions.update_message(message)  # seeded straight into the store
        ids.append(message.id)
    return session.id, ids


async def test_no_limit_gives_every_message_oldest_first_across_read_pages(
    harness: Harness, app: Agent
) -> None:
    session_id, ids = await stored(harness, 1_203)  # more than two of the app's read pages (500)
    got = [m.info.id for m in await app.messages(session_id)]
    assert got == ids


async def test_no_limit_before_a_message_gives_every_earlier_one(harness: Harness, app: Agent) -> None:
    session_id, ids = await stored(harness, 620)
    got = [m.info.id for m in await app.messages(session_id, before=ids[550])]
    assert got == ids[:550]


async def test_a_limit_gives_the_newest_page(harness: Harness, app: Agent) -> None:
    session_id, ids = await stored(harness, 150)
    assert [m.info.id for m in await app.messages(session_id, limit=100)] == ids[-100:]
    assert [m.info.id for m in await app.messages(session_id, limit=30, before=ids[-100])] == ids[-130:-100]
