"""`agentls run` keeps the title that the small model sends after the answer is printed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env


async def test_a_title_that_arrives_after_the_answer_is_kept(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.text("Short answer."))
    title_model.script(Turn.text("Adding numbers").slow_first_byte(0.6))  # a slow small model
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    code, out, err = await agentls("run", "what does add do?", "--yes", cwd=project, env=env)
    assert code == 0, err
    assert "Short answer." in out
    code, out, err = await agentls("sessions", "list", "--json", cwd=project, env=env)
    assert code == 0, err
    assert [s["title"] for s in json.loads(out)] == ["Adding numbers"]


async def test_a_title_that_never_comes_does_not_hold_the_run(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.text("Short answer."))
    title_model.script(Turn.text("never").slow_first_byte(asyncio.Event()))  # never set
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    code, out, err = await asyncio.wait_for(agentls("run", "hi", "--yes", cwd=project, env=env), 30)
    assert code == 0 and "Short answer." in out, err
    code, out, err = await agentls("sessions", "list", "--json", cwd=project, env=env)
    (only,) = json.loads(out)
    assert only["title"] == "hi"  # the prompt's first line, shown until a model title would come
