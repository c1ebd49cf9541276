"""Every config test runs with a private user config folder and no AGENTLS_* variables from outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the user config folder into tmp_path and clear every AGENTLS_* / XDG_* variable."""
    for name in list(os.environ):
        if name.startswith(("AGENTLS_", "XDG_")):
            monkeypatch.delenv(name)
    user = tmp_path / "user-config"
    user.mkdir()
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(user))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return user
