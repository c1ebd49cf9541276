"""Where agentls keeps its data and looks for user config, and how a directory maps to its worktree."""

from __future__ import annotations

import logging
import os
from pathlib import Path

logger = logging.getLogger(__name__)

APP_NAME = "agentls"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


_own_data_dir: list[Path] = []  # the agent host's --data-dir, when this process is that host


def use_data_dir(folder: Path) -> None:
    """Make ``folder`` this process's data folder, whatever the environment says: the agent host of
    ``folder`` (``agentls host serve --data-dir``) serves sessions in its own process (an editor's
    relayed server, a relayed ``agentls run``) whose stores and attach must be that folder's, and
    setting ``AGENTLS_DATA_DIR`` instead would change the environment the host compares front
    ends' with (core/remote/place.py: environment_digest)."""
    _own_data_dir[:] = [folder]


def data_dir() -> Path:
    """The data folder: the one ``use_data_dir`` set, else AGENTLS_DATA_DIR, else
    $XDG_DATA_HOME/agentls, else ~/.local/share/agentls."""
    if _own_data_dir:
        return _own_data_dir[0]
    return _folder("AGENTLS_DATA_DIR", "XDG_DATA_HOME", ".local/share")


def cache_dir() -> Path:
    """Rebuildable data: AGENTLS_CACHE_DIR, else $XDG_CACHE_HOME/agentls, else ~/.cache/agentls."""
    return _folder("AGENTLS_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def config_dir() -> Path:
    """The user config folder: AGENTLS_CONFIG_DIR, else $XDG_CONFIG_HOME/agentls, else ~/.config/agentls."""
    return _folder("AGENTLS_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def _folder(override: str, xdg: str, under_home: str) -> Path:
    """``$override`` as given, else agentls' folder under ``$xdg``, else under ``~/under_home``."""
    given = _env_path(override)
    if given is not None:
        return given
    base = _env_path(xdg)
    return (base if base is not None else Path.home() / under_home) / APP_NAME


def worktree_of(directory: Path) -> Path:
    """The git top level containing ``directory``, else ``directory`` itself (resolved either way)."""
    return git_top_level(directory) or Path(directory).expanduser().resolve()


def git_top_level(directory: Path) -> Path | None:
    """The top level of the git work tree containing ``directory``; None outside one, or without git."""
    import subprocess  # here: the console script reads the cache folder before it needs subprocess

    resolved = Path(directory).expanduser().resolve()
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=resolved,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        # No git binary, or the folder is gone: the directory is its own worktree.
        logger.debug("git rev-parse failed in %s: %s", resolved, exc)
        return None
    top = result.stdout.strip()
    if result.returncode != 0 or not top:
        return None
    return Path(top).resolve()
