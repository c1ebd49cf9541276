"""``agent/session/diff`` says when a step's file changes were not recorded (its snapshot failed):
the step-finish part is marked ``unrecorded``, and the diff must not pretend the step changed nothing.

Two lifetimes of the real server over one real SQLite file: a turn runs, the test marks its step as
a failed snapshot would have (the processor's own marking is tested in
tests/unit/session/test_unrecorded_steps.py), and the next server's diff reports it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.message.models import StepFinishPart
from core.storage.store import DB_NAME, Store
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import agent_config, connect
from tests.lsp.editor import PLUGIN


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model)}


async def test_the_diff_says_which_changes_were_not_recorded(
    tmp_path: Path, project: Path, options: dict[str, Any], model: FakeModelServer
) -> None:
    model.script(Turn.text("Done."))
    async for first in connect(tmp_path, project, PLUGIN, options):
        session = await first.call("agent/session/create", {})
        params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "change things"}]}
        answer = await first.call("agent/session/prompt", params)
        clean = await first.call("agent/session/diff", {"sessionID": session["id"]})
        assert clean["unrecorded"] == 0 and clean["warnings"] == []

    async with await Store.open(tmp_path / "data" / DB_NAME) as store:
        message = await store.get_message(session["id"], answer["info"]["id"])
        [finish] = [p for p in message.parts if isinstance(p, StepFinishPart)]
        finish.unrecorded = True
        await store.upsert_part(finish)

    async for second in connect(tmp_path, project, PLUGIN, options):
        whole = await second.call("agent/session/diff", {"sessionID": session["id"]})
        assert whole["unrecorded"] == 1
        [warning] = whole["warnings"]
        assert "1 step(s)" in warning and "not recorded" in warning
        by_turn = await second.call(
            "agent/session/diff", {"sessionID": session["id"], "messageID": answer["info"]["parentID"]}
        )
        by_step = await second.call(
            "agent/session/diff", {"sessionID": session["id"], "messageID": answer["info"]["id"]}
        )
        assert by_turn["unrecorded"] == by_step["unrecorded"] == 1
