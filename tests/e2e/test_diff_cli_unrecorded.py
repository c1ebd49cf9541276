"""`agentls diff` as a user runs it (a real subprocess) says when a step's changes were not
recorded: the step-finish part is marked as a failed snapshot marks it, and the summary on stderr
carries the warning instead of pretending the step changed nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.message.models import StepFinishPart
from core.message.prompt_input import TextInput
from core.storage.store import DB_NAME, Store
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .test_cli import agentls, clean_env


async def test_diff_warns_of_an_unrecorded_step(
    tmp_path: Path, project: Path, make_app: Any, model: FakeModelServer
) -> None:
    app = await make_app()
    session = await app.create_session()
    model.script(Turn.text("Done."))
    answer = await app.prompt(session.id, [TextInput(text="change things")])
    await app.close()

    env = clean_env(tmp_path)
    code, _, err = await agentls("diff", session.id, cwd=project, env=env)
    assert code == 0 and "not recorded" not in err, err

    async with await Store.open(tmp_path / "data" / DB_NAME) as store:
        message = await store.get_message(session.id, answer.info.id)
        [finish] = [p for p in message.parts if isinstance(p, StepFinishPart)]
        finish.unrecorded = True
        await store.upsert_part(finish)

    code, _, err = await agentls("diff", session.id, cwd=project, env=env)
    assert code == 0, err
    assert "warning: 1 step(s) changed files that were not recorded" in err
