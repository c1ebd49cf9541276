"""Which host mode a front end runs in: its own option, else AGENTLS_HOST, else in-process; a
value that is none of the three is said and read as in-process (core.open.host_mode)."""

from __future__ import annotations

import pytest

from core.open import host_mode


@pytest.mark.parametrize(
    ("option", "variable", "mode", "warned"),
    [
        (None, None, "never", ""),
        (None, "attach", "attach", ""),
        (None, "auto", "auto", ""),
        ("attach", "never", "attach", ""),  # the front end's own option wins
        ("never", "attach", "never", ""),
        (None, "yes", "never", "AGENTLS_HOST must be auto, attach or never, not 'yes'"),
        ("ATTACH", None, "never", "initializationOptions.host must be auto, attach or never, not 'ATTACH'"),
        (True, None, "never", "initializationOptions.host must be auto, attach or never, not True"),
        ({"mode": "attach"}, None, "never", "initializationOptions.host must be"),
    ],
)
def test_host_mode(
    option: object, variable: str | None, mode: str, warned: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if variable is None:
        monkeypatch.delenv("AGENTLS_HOST", raising=False)
    else:
        monkeypatch.setenv("AGENTLS_HOST", variable)
    said: list[str] = []
    assert host_mode(option, "initializationOptions.host", said.append) == mode
    assert said[0].startswith(warned) if warned else said == [], said
