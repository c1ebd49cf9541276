"""The git snapshot store against real git projects."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.errors import NotFoundError
from core.snapshot.store import SnapshotStore, unsafe_worktree_reason

from .conftest import git


async def test_snapshots_across_steps_and_patch_files(store: SnapshotStore, project: Path) -> None:
    first = await store.track()
    assert first is not None
    (project / "src" / "main.py").write_text("print('bye')\n")
    (project / "new.txt").write_text("fresh\n")
    second = await store.track()
    assert second is not None and second != first
    (project / "crlf.txt").unlink()
    (project / "old_name.txt").rename(project / "new_name.txt")

    step1 = await store.patch(first, second)
    assert step1.hash == first and step1.after == second
    assert step1.files == ["new.txt", "src/main.py"]
    step2 = await store.patch(second)
    assert step2.files == ["crlf.txt", "new_name.txt", "old_name.txt"]
    whole = await store.patch(first)
    assert set(whole.files) == {"new.txt", "src/main.py", "crlf.txt", "new_name.txt", "old_name.txt"}
    # An unchanged tree is the same snapshot.
    assert await store.track() == await store.track()


async def test_files_at_returns_exact_bytes(store: SnapshotStore, project: Path) -> None:
    first = await store.track()
    assert first is not None
    crlf = (project / "crlf.txt").read_bytes()
    binary = (project / "image.bin").read_bytes()
    (project / "crlf.txt").write_bytes(b"changed\n")
    (project / "image.bin").write_bytes(b"\0\1\2")
    contents = await store.files_at(first, ["crlf.txt", "image.bin", "missing.txt"])
    assert contents == {"crlf.txt": crlf, "image.bin": binary, "missing.txt": None}
    assert await store.file_at(first, "src/main.py") == b"print('hello')\n"


async def test_diff_has_unified_patch_and_counts(store: SnapshotStore, project: Path) -> None:
    first = await store.track()
    assert first is not None
    (project / "src" / "main.py").write_text("print('hello')\nprint('more')\n")
    (project / "image.bin").write_bytes(b"\0changed")
    diffs = {d.file: d for d in await store.diff(first)}
    main = diffs["src/main.py"]
    assert (main.additions, main.deletions) == (1, 0)
    assert main.patch is not None and "+print('more')" in main.patch and "--- a/src/main.py" in main.patch
    assert main.before == "print('hello')\n"
    assert diffs["image.bin"].patch is not None and "Binary" in diffs["image.bin"].patch


async def test_gitignore_and_info_exclude_respected(store: SnapshotStore, project: Path) -> None:
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "exclude").write_text("secret.txt\n")
    first = await store.track()
    assert first is not None
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("object")
    (project / "debug.log").write_text("noise")
    (project / "secret.txt").write_text("hidden")
    (project / "kept.txt").write_text("kept")
    patch = await store.patch(first)
    assert patch.files == ["kept.txt"]
    assert await store.file_at(patch.after or "", "build/out.o") is None


async def test_project_git_untouched(
    store: SnapshotStore, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even with GIT_DIR/GIT_INDEX_FILE inherited (as in a git hook), the project's repo is left alone.
    monkeypatch.setenv("GIT_DIR", str(project / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(project / ".git" / "index"))
    index_before = (project / ".git" / "index").read_bytes()
    refs_before = git(project, "for-each-ref")
    files_before = sorted(p.relative_to(project / ".git") for p in (project / ".git").rglob("*"))
    store = SnapshotStore(store.git_dir.parent.parent, "prj_env", project)
    first = await store.track()
    (project / "src" / "main.py").write_text("changed\n")
    (project / "added.txt").write_text("x")
    assert first is not None
    await store.patch(first)
    await store.gc()
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert (project / ".git" / "index").read_bytes() == index_before
    assert git(project, "for-each-ref") == refs_before
    assert sorted(p.relative_to(project / ".git") for p in (project / ".git").rglob("*")) == files_before
    assert "refs/agentls" not in git(project, "for-each-ref")


async def test_large_and_binary_files_skipped(data_dir: Path, project: Path) -> None:
    store = SnapshotStore(data_dir, "prj_caps", project, max_file_bytes=10_000, max_blob_bytes=2_000)
    first = await store.track()
    assert first is not None
    (project / "huge.txt").write_text("x" * 20_000)
    (project / "blob.bin").write_bytes(b"\0" * 5_000)
    (project / "text.txt").write_text("y" * 5_000)  # over the binary cap, but text
    (project / "image.bin").write_bytes(b"\0" * 5_000)  # tracked before, now a big binary
    patch = await store.patch(first)
    assert patch.files == ["text.txt"]
    assert await store.file_at(patch.after or "", "huge.txt") is None


async def test_unknown_snapshot_is_not_found(store: SnapshotStore) -> None:
    known = await store.track()
    assert known is not None
    with pytest.raises(NotFoundError):
        await store.file_at("0" * 40, "x")
    with pytest.raises(NotFoundError, match="0000000000"):
        await store.patch("0" * 40)
    with pytest.raises(NotFoundError, match="1111111111"):
        await store.changed_files(known, "1" * 40)


async def test_many_contents_come_from_one_git_run(
    store: SnapshotStore, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await store.track()
    (project / "src" / "main.py").write_text("print('bye')\n")
    (project / "with space.txt").write_text("spaced\n")
    second = await store.track()
    assert first is not None and second is not None
    runs: list[str] = []
    real = store._git.run

    async def counted(*args: str, **kw: Any) -> Any:
        runs.append(args[0])
        return await real(*args, **kw)

    monkeypatch.setattr(store._git, "run", counted)
    gone = "0" * 40
    wanted = [
        (first, "src/main.py"),
        (second, "src/main.py"),
        (first, "with space.txt"),  # not there yet
        (second, "with space.txt"),
        (second, "src"),  # a folder is no file
        (second, "image.bin"),
        (gone, "src/main.py"),
    ]
    got = await store.contents(wanted)
    assert runs == ["cat-file"]
    assert got[first, "src/main.py"] == b"print('hello')\n"
    assert got[second, "src/main.py"] == b"print('bye')\n"
    assert got[first, "with space.txt"] is None
    assert got[second, "with space.txt"] == b"spaced\n"
    assert got[second, "src"] is None
    assert got[second, "image.bin"] == bytes(range(256)) * 4
    error = got[gone, "src/main.py"]
    assert isinstance(error, NotFoundError) and gone in str(error)
    # Each is what file_at says on its own.
    for (snapshot, path), content in got.items():
        if snapshot != gone:
            assert content == await store.file_at(snapshot, path)


async def test_a_path_with_a_newline_is_read_on_its_own(store: SnapshotStore, project: Path) -> None:
    (project / "two\nlines.txt").write_text("odd\n")
    snapshot = await store.track()
    assert snapshot is not None
    got = await store.contents([(snapshot, "two\nlines.txt"), (snapshot, "crlf.txt")])
    assert got == {
        (snapshot, "two\nlines.txt"): b"odd\n",
        (snapshot, "crlf.txt"): b"line one\r\nline two\r\n",
    }


async def test_size_cap_evicts_oldest(data_dir: Path, project: Path) -> None:
    store = SnapshotStore(data_dir, "prj_cap", project, max_store_bytes=10**9)
    hashes = []
    for _ in range(6):
        (project / "data.txt").write_bytes(os.urandom(40_000).hex().encode())  # incompressible-ish
        h = await store.track()
        assert h is not None
        hashes.append(h)
    full = store.du()
    store.max_store_bytes = full // 2
    report = await store.gc()
    assert report.removed, "nothing evicted"
    assert report.removed == hashes[: len(report.removed)]  # oldest first
    assert store.du() <= full // 2
    with pytest.raises(NotFoundError):
        await store.file_at(hashes[0], "data.txt")
    assert await store.file_at(hashes[-1], "data.txt") == (project / "data.txt").read_bytes()


async def test_keep_days_expires_all_but_newest(data_dir: Path, project: Path) -> None:
    store = SnapshotStore(data_dir, "prj_days", project, keep_days=0)
    first = await store.track()
    (project / "a.txt").write_text("a")
    second = await store.track()
    assert first and second
    report = await store.gc()
    assert report.removed == [first]
    assert await store.file_at(second, "a.txt") == b"a"


def test_home_and_root_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home" / "user"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert unsafe_worktree_reason(home) is not None
    assert unsafe_worktree_reason(home.parent) is not None
    assert unsafe_worktree_reason(Path("/")) is not None
    assert unsafe_worktree_reason(home / "code") is None
    store = SnapshotStore(tmp_path / "data", "prj_home", home)
    assert not store.enabled and store.disabled_reason and "home directory" in store.disabled_reason
    root = SnapshotStore(tmp_path / "data", "prj_root", Path("/"))
    assert not root.enabled and root.disabled_reason and "root" in root.disabled_reason


async def test_disabled_store_tracks_nothing(tmp_path: Path, project: Path) -> None:
    off = SnapshotStore(tmp_path / "data", "prj_off", project, enabled=False)
    assert await off.track() is None
    assert not (tmp_path / "data" / "snapshot" / "prj_off").exists()


async def test_no_git_on_path_disables(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    store = SnapshotStore(tmp_path / "data", "prj_nogit", project)
    assert not store.enabled and store.disabled_reason and "git" in store.disabled_reason
    assert await store.track() is None


def test_git_in_project_still_works_after_snapshots(store: SnapshotStore, project: Path) -> None:
    # The snapshot store's own repository is separate: `git status` in the project sees only the project.
    out = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == ""


async def test_nested_repository_symlink_and_odd_names(store: SnapshotStore, project: Path) -> None:
    first = await store.track()
    assert first is not None
    nested = project / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "inner.txt").write_text("inside another repository")
    (project / "link").symlink_to(project / "src" / "main.py")
    odd = "dir with space/ünï [x]*.txt"
    (project / "dir with space").mkdir()
    (project / odd).write_bytes(b"odd\n")
    patch = await store.patch(first)
    assert patch.files == [odd]
    assert await store.file_at(patch.after or "", odd) == b"odd\n"
