"""The core is its door: ``AgentApp`` has exactly the public members of ``core.api.Agent``, with the
protocol's parameters, and tests reach the services it was built on only through ``tests/harness.py``."""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import pytest

from core.api import Agent
from core.app import AgentApp
from tests.harness import Harness, running_agent

TESTS = Path(__file__).resolve().parents[1]
HARNESS = TESTS / "harness.py"


@pytest.fixture
async def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    for name, value in {"AGENTLS_CONFIG_DIR": "config", "HOME": "home"}.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    (tmp_path / "project").mkdir()
    config = {"model": "fake/m", "snapshot": False, "provider": {"fake": {}}}
    async with running_agent(tmp_path / "project", config=config, data_dir=tmp_path / "data") as opened:
        yield opened


def public(names: Iterable[str]) -> set[str]:
    return {name for name in names if not name.startswith("_")}


def test_the_agent_app_has_exactly_the_protocols_public_names(harness: Harness) -> None:
    protocol = public(vars(Agent))
    assert public(dir(AgentApp)) == protocol
    assert public(vars(harness.agent)) == set()  # no public instance attribute either
    assert public(dir(harness.agent)) == protocol


def test_each_method_takes_the_protocols_parameters() -> None:
    for name in public(vars(Agent)):
        wanted, made = getattr(Agent, name), getattr(AgentApp, name)
        if isinstance(wanted, property):
            assert isinstance(made, property), name
            continue
        expected = [(p.name, p.kind, p.default) for p in inspect.signature(wanted).parameters.values()]
        actual = [(p.name, p.kind, p.default) for p in inspect.signature(made).parameters.values()]
        assert actual == expected, name


# What reaching past the door looks like in a test: the app's class or its private members.
PAST_THE_DOOR = re.compile(r"\bAgentApp\b|\._wiring\b|from core\.app import|\bapp\._[a-z]")


def test_no_test_reaches_past_the_door() -> None:
    here = Path(__file__).resolve()
    offenders = [
        f"{path.relative_to(TESTS)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path not in (here, HARNESS)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PAST_THE_DOOR.search(line)
    ]
    assert offenders == []
