"""SessionControls over a real store: the project's remembered mode (its file may be missing,
broken or unwritable), a session's own choice, a child session following its parent."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError
from core.events import SessionModeChanged
from core.session.mode import SessionControls, parse_mode
from core.session.sessions import Sessions
from core.storage import Project, Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "agentls.db")
    yield opened
    await opened.close()


@pytest.fixture
async def project(store: Store, tmp_path: Path) -> Project:
    (tmp_path / "tree").mkdir()
    return await store.ensure_project(tmp_path / "tree")


@pytest.fixture
async def sessions(store: Store) -> AsyncIterator[Sessions]:
    service = Sessions(store, Bus())
    yield service
    await service.close()


def controls(sessions: Sessions, data: Path, project: Project) -> SessionControls:
    return SessionControls(sessions, sessions.bus, data, project.id)


async def test_a_choice_is_the_sessions_and_the_projects(
    sessions: Sessions, project: Project, tmp_path: Path
) -> None:
    first = controls(sessions, tmp_path / "data", project)
    a = await sessions.create(project.id, str(tmp_path))
    b = await sessions.create(project.id, str(tmp_path))
    seen = sessions.bus.subscribe(SessionModeChanged)
    assert (await first.get(a.id)).mode == "ask"
    await first.set_mode(a.id, "plan")
    assert (await first.get(b.id)).mode == "plan"  # never chosen: the project's last choice
    await first.set_mode(b.id, "auto")
    assert (await first.get(a.id)).mode == "plan"  # its own choice stays
    event = seen.get_nowait()
    assert isinstance(event, SessionModeChanged) and (event.sessionID, event.mode) == (a.id, "plan")
    # Another process (a restart) reads both back.
    again = controls(sessions, tmp_path / "data", project)
    assert (await again.get(a.id)).mode == "plan" and (await again.get(b.id)).mode == "auto"
    # Auto-accept is chosen per session: a new one after it starts in Ask, and shows it at once.
    c = await sessions.create(project.id, str(tmp_path))
    assert again.now(c.id).mode == "ask"
    assert (await again.get(c.id)).mode == "ask"
    await again.set_mode(a.id, "plan")
    d = await sessions.create(project.id, str(tmp_path))
    assert (await again.get(d.id)).mode == "plan"  # plan (read-only) still carries over


async def test_a_child_session_follows_its_parent(
    sessions: Sessions, project: Project, tmp_path: Path
) -> None:
    service = controls(sessions, tmp_path / "data", project)
    parent = await sessions.create(project.id, str(tmp_path))
    child = await sessions.create(project.id, str(tmp_path), parent_id=parent.id)
    await service.set_mode(parent.id, "auto")
    assert (await service.get(child.id)).mode == "auto"
    await service.set_mode(child.id, "plan")  # a child's choice goes to its parent
    assert service.now(parent.id).mode == "plan" and service.now(child.id).mode == "plan"
    await service.set_effort(child.id, "high")
    assert (await sessions.get(parent.id)).effort == "high"


@pytest.mark.parametrize("content", [b"not json", b'["auto"]', b'{"mode": "yolo"}', b"x" * 10_000])
async def test_a_broken_project_file_means_ask(
    sessions: Sessions, project: Project, tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "data" / "modes" / f"{project.id}.json"
    file.parent.mkdir(parents=True)
    file.write_bytes(content)
    session = await sessions.create(project.id, str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="core.session.mode"):
        assert (await controls(sessions, tmp_path / "data", project).get(session.id)).mode == "ask"


async def test_an_unwritable_data_folder_keeps_the_sessions_choice(
    sessions: Sessions, project: Project, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the folder should be")
    service = controls(sessions, blocked, project)
    session = await sessions.create(project.id, str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="core.session.mode"):
        assert (await service.set_mode(session.id, "auto")).mode == "auto"
    assert "the project's mode could not be saved" in caplog.text
    assert (await service.get(session.id)).mode == "auto"


async def test_bad_input_is_refused(sessions: Sessions, project: Project, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown mode 'yolo'; the modes are ask, auto, plan"):
        parse_mode("yolo")
    with pytest.raises(NotFoundError):
        await controls(sessions, tmp_path / "data", project).get("ses_missing")
