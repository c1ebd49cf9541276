"""Which host mode a front end runs in: its own option, else AGENTLS_HOST, else in-process;
``tcp://HOST:PORT`` is a host over TCP; any other value is said and read as in-process
(core.open.host_mode)."""

from __future__ import annotations

import pytest

from core.open import host_mode
from core.remote.tcp import TcpHost

ALLOWED = "auto, attach, never or tcp://HOST:PORT"


@pytest.mark.parametrize(
    ("option", "variable", "mode", "warned"),
    [
        (None, None, "never", ""),
        (None, "attach", "attach", ""),
        (None, "auto", "auto", ""),
        ("attach", "never", "attach", ""),  # the front end's own option wins
        ("never", "attach", "never", ""),
        (None, "yes", "never", f"AGENTLS_HOST must be {ALLOWED}, not 'yes'"),
        ("ATTACH", None, "never", f"initializationOptions.host must be {ALLOWED}, not 'ATTACH'"),
        (True, None, "never", f"initializationOptions.host must be {ALLOWED}, not True"),
        (None, "tcp://127.0.0.1:7777", TcpHost("127.0.0.1", 7777), ""),
        ("tcp://[::1]:7777", "never", TcpHost("::1", 7777), ""),
        ("tcp://devbox.lan:80", None, TcpHost("devbox.lan", 80), ""),
        (
            None,
            "tcp://127.0.0.1",
            "never",
            "AGENTLS_HOST: the host address 'tcp://127.0.0.1' is not tcp://HOST:PORT",
        ),
        ("tcp://:7777", None, "never", "initializationOptions.host: the host address 'tcp://:7777' is not"),
        ("tcp://h:0", None, "never", "initializationOptions.host: the host address 'tcp://h:0' is not"),
        (
            "tcp://h:99999",
            None,
            "never",
            "initializationOptions.host: the host address 'tcp://h:99999' is not",
        ),
        ({"mode": "attach"}, None, "never", "initializationOptions.host must be"),
    ],
)
def test_host_mode(
    option: object, variable: str | None, mode: object, warned: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if variable is None:
        monkeypatch.delenv("AGENTLS_HOST", raising=False)
    else:
        monkeypatch.setenv("AGENTLS_HOST", variable)
    said: list[str] = []
    assert host_mode(option, "initializationOptions.host", said.append) == mode
    assert said[0].startswith(warned) if warned else said == [], said
