"""A long session in the real VS Code (code-server + Chromium), the real ``agentls serve`` and the
scripted fake model: the view opens on the newest page of messages; an older page lands whole while
what is on screen stays put; scrolling up reaches the first message with every message once and in
order; a new prompt then still takes the view to the bottom. Screenshots go to
``tests/vscode/screenshots/long``. (How fast: ``bench/vscode_open.py``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.longsession import write_sessions
from tests.vscode.scenario import Driven, drive

TITLE = "The long session"
TURNS = 130  # 260 messages: the newest page of 100, then two older pages (100 and 60)
PAGE = 100


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driven]:
    tmp = tmp_path_factory.mktemp("vscode-long")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("a long session\n")
    data = tmp / "agentls-data"
    data.mkdir()
    asyncio.run(write_sessions(data, folder, TITLE, TURNS * 2))
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text("One more answer.", chunks=3))
        titles.script(*[Turn.text("A title") for _ in range(3)])
        config = fake_model_config(model, titles)
        yield drive("e2e_long.mjs", "long", tmp, folder, config, args={"title": TITLE, "turns": TURNS})


def test_the_session_opens_on_its_newest_page(run: Driven) -> None:
    r = run.phase("open")
    assert r["count"] == PAGE, r
    assert r["label"] == "Load older messages", r


def test_an_older_page_lands_whole_while_the_screen_stays_put(run: Driven) -> None:
    frames: list[dict[str, Any]] = run.phase("older-page")["frames"]
    # The page is asked for, then put in at once, never a part of it.
    counts = [f["count"] for f in frames]
    assert set(counts) == {PAGE, 2 * PAGE} and counts == sorted(counts), counts
    assert "Loading older messages…" in {f["label"] for f in frames if f["count"] == PAGE}, frames
    assert frames[-1]["label"] == "Load older messages"  # 60 more on the server
    # The message at the top of the screen is the same one, at the same place, in every frame.
    assert {f["topId"] for f in frames} == {frames[0]["topId"]}, frames
    offsets = [f["topOffset"] for f in frames]
    assert max(offsets) - min(offsets) < 1, offsets
    # Older messages are not news: a screen reader is not made to read the page aloud as it lands,
    # and the live region is back on for what comes next.
    assert run.phase("older-page")["liveAtPage"] == ["off"]
    assert run.phase("older-page")["liveAfter"] == "polite"


def test_scrolling_up_reaches_the_first_message_with_every_message_once_in_order(run: Driven) -> None:
    r = run.phase("top")
    assert r["reached"] is True
    assert len(r["ids"]) == 2 * TURNS and len(set(r["ids"])) == 2 * TURNS
    assert r["ids"] == sorted(r["ids"])
    assert r["questions"] == [f"Question {n}" for n in range(TURNS)]
    assert r["answers"] == [f"Answer {n}" for n in range(TURNS)]
    assert r["label"] == ""  # nothing older left
    assert r["pages"] == 2  # each older page in a box of its own
    assert r["gaps"] == [8], r["gaps"]  # the same space between messages across a page's edge
    assert r["liveAtPage"] == ["off", "off"]  # the second page landed quietly too


def test_a_new_prompt_takes_the_view_to_the_bottom_and_follows_the_answer(run: Driven) -> None:
    r = run.phase("follow")
    assert r["lastOnScreen"] is True
    assert r["count"] == 2 * TURNS + 2
