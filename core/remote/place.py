"""Where a data dir's host listens and locks: one host per user and data dir.

The socket lives in the user's runtime dir (``$XDG_RUNTIME_DIR/agentls``), else in a 0700 folder
under the data dir, else (a path too long for a Unix socket) in ``/tmp/agentls-<uid>``; its name
carries a digest of the data dir, so two data dirs never share a host. A folder that another user
owns, or that others may write to, is refused: whoever controls it could stand in for the host.
The lock (``host.lock`` in the data dir) is what makes a host the only one on its data dir.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from core.errors import AgentError

_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux (104 on macOS), with its NUL


class UnsafeFolderError(AgentError):
    """The socket's folder belongs to someone else or is open to others."""


def lock_path(data_dir: Path) -> Path:
    """The file whose lock a running host holds."""
    return data_dir / "host.lock"


def socket_path(data_dir: Path) -> Path:
    """The socket of the host of ``data_dir`` (its folder made 0700 if missing, checked if not)."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:12]
    name = f"host-{digest}.sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folders = [Path(runtime) / "agentls"] if runtime else []
    folders += [data_dir / "host", Path("/tmp") / f"agentls-{os.getuid()}"]
    for folder in folders:
        if len(str(folder / name).encode()) <= _MAX_SOCKET_PATH:
            return private_folder(folder) / name
    raise UnsafeFolderError(f"no folder for the host's socket has a path short enough ({folders[-1]})")


def private_folder(folder: Path) -> Path:
    """``folder``, created 0700 when missing; UnsafeFolderError when it exists and is not ours alone."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise UnsafeFolderError(f"{folder} is not a folder of this user: the host will not use it")
    if info.st_mode & 0o077:
        raise UnsafeFolderError(
            f"{folder} can be opened by other users (mode {stat.S_IMODE(info.st_mode):o}): "
            f"the host will not use it (chmod 700 {folder})"
        )
    return folder


def environment_digest() -> str:
    """A digest of the environment that decides what an agent does: agentls's variables, API keys
    and bases, the home and config folders, proxies. A host serves only front ends whose digest
    matches its own (it runs every agent with its own environment); the values never leave it."""
    chosen = sorted(
        (name, value)
        for name, value in os.environ.items()
        if (name.startswith("AGENTLS_") and not name.startswith("AGENTLS_HOST"))
        or name.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))
        or name.lower() in _PROXY_VARIABLES
        or name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")
    )
    return hashlib.sha256(repr(chosen).encode()).hexdigest()


_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy", "no_proxy")
