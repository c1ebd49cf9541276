"""Where the host listens and whose environment it serves, as tables: which socket folders are
refused, which path is chosen, which variables make a front end another environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from core.remote.place import UnsafeFolderError, environment_digest, private_folder, socket_path


def _mode(mode: int) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        folder.mkdir()
        folder.chmod(mode)

    return make


def _foreign(folder: Path) -> None:
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)


def _symlink(folder: Path) -> None:
    target = folder.parent / "elsewhere"
    target.mkdir(mode=0o700)
    folder.symlink_to(target)


def _file(folder: Path) -> None:
    folder.write_text("not a folder")


@pytest.mark.parametrize(
    ("make", "refused"),
    [
        (None, None),  # missing: created 0700
        (_mode(0o700), None),
        (_mode(0o750), "can be opened by other users (mode 750)"),
        (_mode(0o705), "can be opened by other users (mode 705)"),
        (_mode(0o777), "can be opened by other users (mode 777)"),
        (_mode(0o1777), "can be opened by other users (mode 1777)"),
        (_foreign, "is not a folder of this user"),
        (_symlink, "is not a folder of this user"),
        (_file, None),  # mkdir fails first: FileExistsError (below)
    ],
    ids=["missing", "0700", "0750", "0705", "0777", "sticky-0777", "other-user", "symlink", "a-file"],
)
def test_the_socket_folder_must_be_the_users_alone(
    tmp_path: Path, make: Callable[[Path], None] | None, refused: str | None
) -> None:
    folder = tmp_path / "agentls"
    if make is _foreign and os.getuid() != 0:
        pytest.skip("needs root to give a folder to another user")
    if make is not None:
        make(folder)
    if make is _file:
        with pytest.raises(FileExistsError):
            private_folder(folder)
        return
    if refused is None:
        assert private_folder(folder) == folder
        assert folder.stat().st_mode & 0o777 == 0o700
    else:
        with pytest.raises(UnsafeFolderError, match=refused.replace("(", r"\(").replace(")", r"\)")):
            private_folder(folder)


def test_the_runtime_dir_comes_first_then_the_data_dir_then_tmp(
    runtime_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = runtime_dir / "r"  # short paths of the test's own: any tmp_path may be too long
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    data = runtime_dir / "d"
    assert socket_path(data).parent == runtime / "agentls"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / ("x" * 120)))  # too long for a socket
    assert socket_path(data).parent == data / "host"
    long_data = tmp_path / ("y" * 120)
    assert socket_path(long_data).parent == Path(f"/tmp/agentls-{os.getuid()}")
    assert socket_path(data) != socket_path(runtime_dir / "other")  # one host per data dir


@pytest.mark.parametrize(
    ("name", "value", "changes"),
    [
        ("OPENAI_API_KEY", "sk-other", True),
        ("ANTHROPIC_API_BASE", "http://127.0.0.1:1", True),
        ("OPENAI_BASE_URL", "http://127.0.0.1:1", True),
        ("AGENTLS_CONFIG_CONTENT", "{}", True),
        ("AGENTLS_PERMISSION", '{"bash": "allow"}', True),
        ("https_proxy", "http://proxy:3128", True),
        ("HTTPS_PROXY", "http://proxy:3128", True),
        ("HOME", "/elsewhere", True),
        ("XDG_CONFIG_HOME", "/elsewhere", True),
        ("AGENTLS_HOST", "never", False),
        ("AGENTLS_HOST_IDLE", "5", False),
        ("PATH", "/usr/bin", False),
        ("TERM", "dumb", False),
    ],
)
def test_what_makes_a_front_end_another_environment(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, changes: bool
) -> None:
    before = environment_digest()
    monkeypatch.setenv(name, value)
    assert (environment_digest() != before) is changes
