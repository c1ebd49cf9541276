"""The composition root: the abort wait it gives the loop, read from ``AGENTLS_ABORT_TIMEOUT``."""

from __future__ import annotations

import logging

import pytest

from core.session.loop import ABORT_TIMEOUT
from core.wiring import abort_timeout


@pytest.mark.parametrize(
    ("raw", "expected", "warned"),
    [
        (None, ABORT_TIMEOUT, False),
        ("0", 0.0, False),
        ("2.5", 2.5, False),
        ("soon", ABORT_TIMEOUT, True),
        ("-1", ABORT_TIMEOUT, True),
        ("inf", ABORT_TIMEOUT, True),
        ("nan", ABORT_TIMEOUT, True),
    ],
)
def test_the_abort_wait(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    raw: str | None,
    expected: float,
    warned: bool,
) -> None:
    if raw is None:
        monkeypatch.delenv("AGENTLS_ABORT_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("AGENTLS_ABORT_TIMEOUT", raw)
    with caplog.at_level(logging.WARNING, logger="core.wiring"):
        assert abort_timeout() == expected
    assert bool(caplog.records) is warned
