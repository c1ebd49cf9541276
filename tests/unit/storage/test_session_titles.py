"""Session titles are one line of printable text wherever they come from (model, rename, old rows)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.config.schema import Config
from core.errors import InvalidInputError
from core.events import SessionCreated
from core.llm import events as ev
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.message.title_text import clean_title
from core.open import open_agent
from core.session.title import generate_title
from core.storage import Project, Store
from tests.unit.storage import factories as f
from tests.unit.storage.test_sessions_cli import _run, _seed

ESC = "\x1b"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Fix the parser", "Fix the parser"),
        (f"{ESC}[2J{ESC}[HFix", "[2J[HFix"),  # clear screen + home: ESC removed, text kept
        (f"{ESC}]0;owned\x07Title", "]0;ownedTitle"),  # window-title OSC ended by BEL
        (f"{ESC}]8;;http://x{ESC}\\link{ESC}]8;;{ESC}\\", "]8;;http://x\\link]8;;\\"),  # hyperlink
        ("\x9b31mred", "31mred"),  # C1 CSI
        ("abc\u202egnp.exe", "abcgnp.exe"),  # right-to-left override
        ("\u2066isolate\u2069 \u200fmark\u200e", "isolate mark"),
        ("two\nlines\r\nand\ttab", "two lines and tab"),
        ("para\u2028graph\u2029end\u0085", "para graph end"),
        ("nul\x00 del\x7f", "nul del"),
        ("lone \ud800 surrogate", "lone surrogate"),
        ("emoji 👩‍💻 and accents é", "emoji 👩‍💻 and accents é"),  # ZWJ sequences are kept
        ("  spaced   out  ", "spaced out"),
        (f"{ESC}\x07\u202e", ""),
    ],
)
def test_clean_title(raw: str, clean: str) -> None:
    assert clean_title(raw) == clean


async def test_the_store_never_keeps_control_characters(store: Store, project: Project) -> None:
    s = f.session(project.id, title=f"{ESC}[31mred\u202e title")
    await store.insert_session(s)
    assert (await store.get_session(s.id)).title == "[31mred title"
    await store.update_session(s.model_copy(update={"title": f"renamed{ESC}[8m hidden"}))
    assert (await store.get_session(s.id)).title == "renamed[8m hidden"


async def test_a_model_written_title_is_cleaned() -> None:
    config = Config.model_validate(
        {
            "provider": {
                "fake": {"litellm_provider": "openai", "options": {"api_base": "http://127.0.0.1:9/v1"}}
            }
        }
    )
    model = resolve_model(config, "fake/m")

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        yield ev.TextDelta(id="t", text=f"{ESC}]0;pwned\x07Refactor\u202e the loop")

    assert await generate_title(stream, model, "refactor the loop") == "]0;pwnedRefactor the loop"


def test_sessions_list_cleans_rows_written_before_the_fix(tmp_path: Path) -> None:
    """A row stored by an older version still holds ESC: the listing must not print it raw."""
    seeded = asyncio.run(_seed(tmp_path))
    with sqlite3.connect(seeded.data / "agentls.db") as db:
        db.execute(
            "UPDATE sessions SET body = json_set(body, '$.title', ?) WHERE id = ?",
            (f"{ESC}]0;owned\x07evil\u202etitle", seeded.new.id),
        )
    for args in (("sessions", "list"), ("sessions", "show", seeded.new.id)):
        done = _run(seeded, *args)
        assert done.returncode == 0, done.stderr
        assert ESC not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout
        assert "]0;ownedeviltitle" in done.stdout


async def test_a_user_rename_is_cleaned_and_control_only_titles_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "project").mkdir()
    app = await open_agent(tmp_path / "project", data_dir=tmp_path / "data")
    try:
        session = await app.create_session()
        renamed = await app.rename_session(session.id, f"  {ESC}[2Jmine\u202e  ")
        assert renamed.title == "[2Jmine"
        assert (await app.get_session(session.id)).title == "[2Jmine"
        with pytest.raises(InvalidInputError, match="empty"):
            await app.rename_session(session.id, f"{ESC}\u202e\x07")
    finally:
        await app.close()


async def test_a_title_given_at_creation_is_cleaned_in_what_clients_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "project").mkdir()
    app = await open_agent(tmp_path / "project", data_dir=tmp_path / "data")
    try:
        with app.subscribe(SessionCreated) as sub:
            session = await app.create_session(f"{ESC}]0;x\x07named")
            event = sub.get_nowait()
        assert session.title == "]0;xnamed"
        assert isinstance(event, SessionCreated) and event.info.title == "]0;xnamed"
        blank = await app.create_session(f"{ESC}\u202e")
        assert blank.title.startswith("New session")
    finally:
        await app.close()
