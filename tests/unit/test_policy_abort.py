"""A tool's dialog asked after its session's abort is rejected at once, never left waiting."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core.agent.builtin import builtin_agents
from core.bus import Bus
from core.errors import PermissionRejectedError
from core.events import PermissionAsked
from core.permission.request import PermissionAsk
from core.permission.rules import Rule
from core.permission.service import Permissions
from core.policy import AgentPolicy
from core.storage import Store


async def test_a_dialog_asked_after_the_abort_is_rejected_without_being_shown(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "agentls.db")
    try:
        project = await store.ensure_project(tmp_path)
        bus = Bus()
        shown: list[Any] = []
        bus.listen(shown.append, PermissionAsked)
        permissions = await Permissions.open(bus, store, project.id)
        config = SimpleNamespace(tool_output=SimpleNamespace(max_lines=10, max_bytes=1000))
        settings: Any = SimpleNamespace(state=SimpleNamespace(snapshots=SimpleNamespace(workspace=None),
                                                              config=config, sandbox=None))  # fmt: skip
        place: Any = SimpleNamespace(directory=tmp_path, worktree=tmp_path, data_dir=tmp_path / "data")
        none: Any = None
        sessions: Any = SimpleNamespace(bus=bus)  # all the policy takes of them here: the bus
        policy = AgentPolicy(settings, place, sessions, none, permissions, none, none, none)
        abort = asyncio.Event()
        agent = next(a for a in builtin_agents() if a.name == "build")
        ctx = policy.tool_context("ses_1", agent, abort, [Rule("*", "*", "ask")], "msg_1", "call_1")

        abort.set()  # the user stopped the turn while the tool was busy before its dialog
        permissions.cancel_session("ses_1")  # what the abort did to the dialogs open then
        with pytest.raises(PermissionRejectedError, match="aborted"):
            await asyncio.wait_for(ctx.ask(PermissionAsk("bash", ["rm x"])), timeout=5)
        assert not shown, "no dialog was shown for it"
        assert not permissions.pending("ses_1")
    finally:
        await store.close()
