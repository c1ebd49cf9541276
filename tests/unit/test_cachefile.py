"""``write_whole``: a cache file is replaced whole or left as it was, with no temporary file behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from core.cachefile import read_capped, write_whole


class _FullFile:
    """A file whose writes fail as on a full disk (it is still closed, so its fd does not leak)."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.real.close()

    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")


def fill_the_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every ``write_whole`` fail half-way, after its temporary file was made."""
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode: _FullFile(real(fd, mode)))


def test_the_file_is_written_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "cache.json"
    write_whole(path, b"one")
    write_whole(path, b"two")
    assert path.read_bytes() == b"two"
    assert os.listdir(path.parent) == ["cache.json"]


def test_a_full_disk_keeps_the_old_file_and_no_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.json"
    write_whole(path, b"old")
    fill_the_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        write_whole(path, b"new")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["cache.json"]


def test_a_folder_that_cannot_be_made_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    with pytest.raises(OSError):
        write_whole(blocker / "cache.json", b"data")


# --- read_capped: only a regular file of bounded size is read -------------------------------------


def test_a_regular_file_within_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    path.write_bytes(b"x" * 100)
    assert read_capped(path, 100) == b"x" * 100


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "too-big"])
def test_anything_but_a_small_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "cache.json"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a plain open() would wait forever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # endless: a plain read() would fill the memory
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"x" * 101)
    with pytest.raises((OSError, ValueError)):
        read_capped(path, 100)


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_capped(tmp_path / "none", 100)
