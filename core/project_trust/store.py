"""The projects the user trusted, remembered in ``<data dir>/trust.json`` (mode 600).

A project is named by its worktree's canonical path (symlinks resolved), so the same checkout
reached another way is the same project. Only "trusted" is remembered: "Not now" asks again the
next time, and ``agentls trust revoke`` makes a project ask again.

A file that cannot be read as this store is an error that names it: nothing is trusted meanwhile,
and nothing overwrites it until the user fixes or removes it (their answers are not lost).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.cachefile import read_capped, write_whole
from core.errors import ConfigError

FILE_NAME = "trust.json"
_MAX_BYTES = 4 * 1024 * 1024
_VERSION = 1


class TrustStoreError(ConfigError):
    """The trust file exists but is not one this version can read."""


def store_path(data_dir: Path) -> Path:
    """Where the answers live under the data folder ``data_dir``."""
    return data_dir / FILE_NAME


def canonical(path: Path) -> Path:
    """The name a project is remembered by: absolute, ``~`` expanded, symlinks resolved."""
    return path.expanduser().resolve()


def read(data_dir: Path) -> dict[str, dict[str, Any]]:
    """Every trusted project: canonical path → what was remembered with it (``since``)."""
    path = store_path(data_dir)
    try:
        raw = read_capped(path, _MAX_BYTES)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise TrustStoreError(f"{path}: cannot read the trusted projects: {exc}") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise TrustStoreError(f"{path}: not valid JSON ({exc}); fix or remove it") from None
    projects = data.get("trusted") if isinstance(data, dict) else None
    if not isinstance(projects, dict) or not all(isinstance(v, dict) for v in projects.values()):
        shape = '{"version": 1, "trusted": {PATH: {...}}}'
        raise TrustStoreError(f"{path}: expected {shape}; fix or remove it")
    return projects


def is_trusted(data_dir: Path, worktree: Path) -> bool:
    """Whether the user trusted the project at ``worktree`` (an unreadable store trusts nothing)."""
    try:
        return str(canonical(worktree)) in read(data_dir)
    except TrustStoreError:
        return False


def add(data_dir: Path, worktree: Path) -> Path:
    """Remember the project at ``worktree`` as trusted; its canonical path."""
    projects = read(data_dir)
    name = canonical(worktree)
    projects.setdefault(str(name), {"since": datetime.now(UTC).isoformat(timespec="seconds")})
    _write(data_dir, projects)
    return name


def revoke(data_dir: Path, worktree: Path) -> bool:
    """Forget the trust given to ``worktree``; whether it was trusted."""
    projects = read(data_dir)
    if projects.pop(str(canonical(worktree)), None) is None:
        return False
    _write(data_dir, projects)
    return True


def _write(data_dir: Path, projects: dict[str, dict[str, Any]]) -> None:
    text = json.dumps({"version": _VERSION, "trusted": dict(sorted(projects.items()))}, indent=2)
    write_whole(store_path(data_dir), (text + "\n").encode())  # a temporary file of mode 600, renamed
