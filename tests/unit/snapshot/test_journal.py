"""The edit journal: the fallback without git or with snapshots off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import NotFoundError
from core.snapshot.factory import open_snapshots
from core.snapshot.journal import EditJournal, RecordingWorkspace
from core.snapshot.revert import Reverter
from core.storage.store import Store
from core.workspace import DiskWorkspace

from .harness import CTX, Agent, StoreSessions, tree, writes


async def test_no_git_on_path_falls_back_and_revert_works(
    project: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(data_dir / "no-bin-here"))
    setup = open_snapshots(data_dir, "prj_nogit", project, DiskWorkspace(project))
    assert isinstance(setup.snapshots, EditJournal) and isinstance(setup.workspace, RecordingWorkspace)
    assert setup.fallback_reason and "git" in setup.fallback_reason
    async with await Store.open(data_dir / "agentls.db") as store:
        agent = await Agent.start(store, setup.snapshots, setup.workspace, project)
        before = tree(project)
        user = await agent.user()
        await agent.step(
            await agent.reply(user),
            writes(project, {"src/main.py": b"agent\n", "new.txt": b"n\n", "crlf.txt": None}),
        )
        reverter = Reverter(StoreSessions(store), setup.snapshots, setup.workspace, lambda _s: False)
        result = await reverter.revert(agent.session.id, user.id)
        assert tree(project) == before
        assert result.removed == ["new.txt"] and sorted(result.restored) == ["crlf.txt", "src/main.py"]


def test_snapshot_false_uses_the_journal(project: Path, data_dir: Path) -> None:
    setup = open_snapshots(data_dir, "prj_off", project, DiskWorkspace(project), enabled=False)
    assert isinstance(setup.snapshots, EditJournal)
    assert setup.fallback_reason and "disabled" in setup.fallback_reason


async def test_before_content_recorded_once_per_step(project: Path, data_dir: Path) -> None:
    journal = EditJournal(data_dir, "prj_j", project, DiskWorkspace(project))
    ws = RecordingWorkspace(DiskWorkspace(project), journal)
    start = await journal.track()
    assert start is not None
    await ws.write_bytes(project / "src" / "main.py", b"first\n", CTX)
    await ws.write_bytes(project / "src" / "main.py", b"second\n", CTX)
    entry = json.loads((journal.dir / "epochs" / f"{start}.json").read_text())["files"]["src/main.py"]
    assert (journal.dir / "blobs" / entry["before"]).read_bytes() == b"print('hello')\n"
    assert (journal.dir / "blobs" / entry["after"]).read_bytes() == b"second\n"
    end = await journal.track()
    assert end is not None
    assert await journal.file_at(start, "src/main.py") == b"print('hello')\n"
    assert await journal.file_at(end, "src/main.py") == b"second\n"
    assert (await journal.patch(start, end)).files == ["src/main.py"]
    assert await journal.changed_files(end) == []
    diff = await journal.diff(start, end)
    assert diff[0].additions == 1 and diff[0].deletions == 1


async def test_too_large_before_content_is_not_kept(project: Path, data_dir: Path) -> None:
    journal = EditJournal(data_dir, "prj_big", project, DiskWorkspace(project), max_file_bytes=10)
    ws = RecordingWorkspace(DiskWorkspace(project), journal)
    start = await journal.track()
    assert start is not None
    await ws.write_bytes(project / "src" / "main.py", b"x" * 100, CTX)
    assert await journal.changed_files(start) == []
    with pytest.raises(NotFoundError):
        await journal.file_at(start, "src/main.py")
    # Asked together, the file that was not kept fails alone.
    got = await journal.contents([(start, "src/main.py"), (start, "crlf.txt"), ("0" * 20, "crlf.txt")])
    assert isinstance(got[start, "src/main.py"], NotFoundError)
    assert got[start, "crlf.txt"] == b"line one\r\nline two\r\n"
    assert isinstance(got["0" * 20, "crlf.txt"], NotFoundError)


async def test_gc_drops_old_epochs_and_their_blobs(project: Path, data_dir: Path) -> None:
    journal = EditJournal(data_dir, "prj_gc", project, DiskWorkspace(project), keep_days=0)
    ws = RecordingWorkspace(DiskWorkspace(project), journal)
    old = await journal.track()
    await ws.write_bytes(project / "a.txt", b"a" * 1000, CTX)
    await ws.write_bytes(project / "a.txt", b"b" * 1000, CTX)
    newest = await journal.track()
    assert old and newest
    size = journal.du()
    report = await journal.gc()
    assert report.removed == [old]
    assert journal.du() < size
    assert list((journal.dir / "blobs").iterdir()) == []
    with pytest.raises(NotFoundError):
        await journal.file_at(old, "a.txt")
    assert await journal.file_at(newest, "a.txt") == b"b" * 1000  # falls back to the file itself
