"""Switching sessions in a real VS Code (code-server + Chromium), the real ``agentls serve``: a
100-message and a 1,000-message session, switched between twelve times with real clicks in the
session menu, each open at its latest message — the last answer at the bottom of the transcript —
within 500 ms, also after the user had scrolled up in the other one. Screenshots go to
``tests/vscode/screenshots/switch``. (How fast a cold open is: ``bench/vscode_open.py``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from tests.longsession import write_session
from tests.vscode.scenario import Driven, drive

SESSIONS = {"Hundred messages": 50, "Thousand messages": 500}  # title → turns (two messages each)
SWITCHES = 12


async def _write(data: Path, folder: Path) -> None:
    for title, turns in SESSIONS.items():
        await write_session(data, folder, title, turns)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driven]:
    tmp = tmp_path_factory.mktemp("vscode-switch")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("two long sessions\n")
    data = tmp / "agentls-data"
    data.mkdir()
    asyncio.run(_write(data, folder))
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        config = fake_model_config(model, titles)
        sessions = [{"title": title, "last": f"Answer {turns - 1}:"} for title, turns in SESSIONS.items()]
        args = {"sessions": sessions, "switches": SWITCHES}
        yield drive("e2e_switch.mjs", "switch", tmp, folder, config, args=args)


def test_every_switch_opens_the_session_at_its_latest_message_within_500_ms(run: Driven) -> None:
    r = run.phase("switches")
    times = [s["ms"] for s in r["switches"]]
    print("switch → latest message at the bottom (ms):", times, "median", sorted(times)[len(times) // 2])
    assert len(r["switches"]) == SWITCHES, r
    assert all(s["atBottom"] for s in r["switches"]), r["switches"]
    assert max(times) <= 500, r["switches"]
