"""core.app_config: MCP servers reconciled one by one, retired servers stopped after their turns, defaults
followed, model references checked before a reconfigure."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.app_config import McpServers, Retired, check_model_refs, follow_default
from core.config.loader import Layer, resolve
from core.config.schema import Config
from core.errors import ConfigError
from tests.ticks import next_tick

SERVER = Path(__file__).parent.parent / "fixtures" / "mcp" / "echo_server.py"


def servers(**entries: dict[str, Any]) -> Any:
    return Config.model_validate({"mcp": entries}).mcp


ECHO = {"type": "local", "command": [sys.executable, str(SERVER)]}


@pytest.fixture
async def running() -> AsyncIterator[list[McpServers]]:
    """MCP server sets a test creates; every manager is stopped at the end."""
    made: list[McpServers] = []
    yield made
    for state in made:
        for manager in state.managers():
            await manager.close()


async def test_unchanged_servers_keep_running_and_changed_ones_are_replaced(
    tmp_path: Path, running: list[McpServers]
) -> None:
    first, retired, warnings = await McpServers().reconcile(servers(echo=ECHO), tmp_path)
    running.append(first)
    assert retired == [] and warnings == []
    assert sorted(t.id for t in first.tools()) == ["echo_add", "echo_block", "echo_echo", "echo_fail"]
    (echo,) = first.managers()

    same, retired, _ = await first.reconcile(servers(echo=ECHO), tmp_path)
    assert same.managers() == [echo] and retired == []

    changed, retired, _ = await same.reconcile(servers(echo={**ECHO, "environment": {"X": "1"}}), tmp_path)
    running.append(changed)
    assert retired == [echo] and changed.managers() != [echo]
    assert len(changed.tools()) == 4
    await echo.close()

    removed, retired, _ = await changed.reconcile({}, tmp_path)
    assert retired == changed.managers() and removed.tools() == [] and removed.managers() == []


async def test_a_server_that_fails_is_reported_once_and_retried_only_when_its_config_changes(
    tmp_path: Path, running: list[McpServers]
) -> None:
    broken = {"type": "local", "command": [str(tmp_path / "missing-server")]}
    first, _, warnings = await McpServers().reconcile(servers(bad=broken), tmp_path)
    assert len(warnings) == 1 and "bad" in warnings[0]
    assert first.managers() == [] and "bad" in first.entries
    again, _, warnings = await first.reconcile(servers(bad=broken), tmp_path)
    assert warnings == []
    fixed, _, warnings = await again.reconcile(servers(bad=ECHO), tmp_path)
    running.append(fixed)
    assert warnings == [] and len(fixed.tools()) == 4


async def test_a_disabled_server_is_not_started(tmp_path: Path) -> None:
    state, _, warnings = await McpServers().reconcile(servers(off={**ECHO, "enabled": False}), tmp_path)
    assert warnings == [] and state.managers() == [] and state.tools() == []


class FakeManager:
    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


async def test_retired_servers_stop_when_the_turns_that_may_use_them_end() -> None:
    release = asyncio.Event()
    turn = asyncio.create_task(release.wait())
    manager = FakeManager()
    retired = Retired()
    await retired.retire([manager], after=[turn])  # type: ignore[list-item]
    for _ in range(5):
        await next_tick()
    assert not manager.closed  # the turn may still call it
    release.set()
    await turn
    await retired.close([])
    assert manager.closed


async def test_retired_servers_stop_at_once_when_no_turn_runs() -> None:
    manager, also = FakeManager(), FakeManager()
    retired = Retired()
    await retired.retire([manager], after=[])  # type: ignore[list-item]
    assert manager.closed
    await retired.close([also])  # type: ignore[list-item]
    assert also.closed


def test_sessions_on_a_replaced_default_follow_it_through_several_changes() -> None:
    moved: dict[str, str] = {}
    follow_default(moved, "p/a", "p/b")
    assert moved == {"p/a": "p/b"}
    follow_default(moved, "p/b", "p/c")
    assert moved == {"p/a": "p/c", "p/b": "p/c"}
    follow_default(moved, "p/c", "p/a")  # back to a: sessions on a stay, b and c follow
    assert moved == {"p/b": "p/a", "p/c": "p/a"}
    follow_default(moved, "p/a", None)  # no default any more: nobody moves
    follow_default(moved, None, "p/x")
    assert moved == {"p/b": "p/a", "p/c": "p/a"}


def test_a_malformed_model_reference_names_its_layer_and_key() -> None:
    good = resolve(
        [Layer("files", {"model": "p/m", "agent": {"x": {"model": "p/n"}}, "provider": {"p": {}}})]
    )
    check_model_refs(good)
    bad = resolve([Layer("files", {"model": "openai/m"}), Layer("settings", {"small_model": "tiny"})])
    with pytest.raises(ConfigError, match=r"^settings: small_model: model 'tiny' must look like"):
        check_model_refs(bad)
