"""End-to-end fixtures: a real AgentApp on a temp project, talking to the fake model servers over HTTP.

Titles go to a second fake server (the small model), so that a title request never takes a turn
scripted for the main model, whatever order the two requests arrive in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from core.app import AgentApp
from core.bus import Subscription
from core.config.loader import Layer
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer


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


@pytest.fixture
async def model() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as srv:
        yield srv


@pytest.fixture
async def title_model() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as srv:
        yield srv


def fake_config(
    model: FakeModelServer, title_model: FakeModelServer, *, route: str = "openai", **extra: Any
) -> dict[str, Any]:
    """The shared fake-model config with short retry waits for tests."""
    retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 3}
    return fake_model_config(model, title_model, route=route, **{"retry": retry, **extra})


AppFactory = Callable[..., Any]


@pytest.fixture
async def make_app(
    project: Path, tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> AsyncIterator[AppFactory]:
    """Open AgentApps on the project with the fake config (plus overrides); closed at the end."""
    apps: list[AgentApp] = []

    async def make(route: str = "openai", **overrides: Any) -> AgentApp:
        layer = Layer("test", fake_config(model, title_model, route=route, **overrides), None)
        app = await AgentApp.open(project, config_layers=[layer], data_dir=tmp_path / "data")
        apps.append(app)
        return app

    yield make
    for app in apps:
        await app.close()


def text_of(message: Any) -> str:
    """The visible text of a MessageWithParts."""
    return "".join(p.text for p in message.parts if p.type == "text" and not getattr(p, "synthetic", False))


def drain(sub: Subscription) -> list[Any]:
    """Every event queued on a subscription right now."""
    events = []
    while (event := sub.get_nowait()) is not None:
        events.append(event)
    return events
