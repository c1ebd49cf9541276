"""Start-up imports switch pydantic's plugin scan off with its documented variable, and only then."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agentls.boot import _no_pydantic_plugins

VAR = "PYDANTIC_DISABLE_PLUGINS"


def child_sees() -> str:
    code = f"import os; print(os.environ.get({VAR!r}, '-'))"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_set_during_the_imports_and_gone_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VAR, raising=False)
    with _no_pydantic_plugins():
        assert os.environ[VAR] == "__all__"
    assert VAR not in os.environ
    assert child_sees() == "-"  # a tool started later does not inherit it


def test_a_value_the_user_set_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VAR, "logfire")
    with _no_pydantic_plugins():
        assert os.environ[VAR] == "logfire"
    assert os.environ[VAR] == "logfire"


def test_put_back_when_the_imports_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VAR, raising=False)
    with pytest.raises(ImportError), _no_pydantic_plugins():
        raise ImportError("a missing module")
    assert VAR not in os.environ
