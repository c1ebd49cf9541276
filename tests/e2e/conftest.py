"""End-to-end fixtures: a real agent on a temp project (``tests/harness.py``), talking to the fake
model servers of ``tests/conftest.py`` over HTTP.

Titles go to a second fake server (the small model), so that a title request never takes a turn
scripted for the main model, whatever order the two requests arrive in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from core.api import Agent
from core.bus import Subscription
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from tests.harness import Harness, open_test_agent


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep user config and data inside the test's temp folder."""
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT", "AGENTLS_PERMISSION"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return root


def fake_config(
    model: FakeModelServer, title_model: FakeModelServer, *, route: str = "openai", **extra: Any
) -> dict[str, Any]:
    """The shared fake-model config with short retry waits for tests."""
    retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 3}
    return fake_model_config(model, title_model, route=route, **{"retry": retry, **extra})


HarnessFactory = Callable[..., Awaitable[Harness]]
AppFactory = Callable[..., Awaitable[Agent]]


@pytest.fixture
async def make_harness(
    project: Path, tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> AsyncIterator[HarnessFactory]:
    """Open agents on the project with the fake config (plus overrides), with what they were built
    on; closed at the end."""
    opened: list[Harness] = []

    async def make(route: str = "openai", **overrides: Any) -> Harness:
        config = fake_config(model, title_model, route=route, **overrides)
        harness = await open_test_agent(project, config=config, data_dir=tmp_path / "data")
        opened.append(harness)
        return harness

    yield make
    for harness in opened:
        await harness.close()


@pytest.fixture
def make_app(make_harness: HarnessFactory) -> AppFactory:
    """Open agents as ``make_harness`` does, for a test that drives the agent only."""

    async def make(route: str = "openai", **overrides: Any) -> Agent:
        return (await make_harness(route, **overrides)).agent

    return make


def text_of(message: Any) -> str:
    """The visible text of a MessageWithParts."""
    return "".join(p.text for p in message.parts if p.type == "text" and not getattr(p, "synthetic", False))


def drain(sub: Subscription) -> list[Any]:
    """Every event queued on a subscription right now."""
    events = []
    while (event := sub.get_nowait()) is not None:
        events.append(event)
    return events
