"""`agentls review` as a user runs it: a real subprocess over a session the agent edited with the
edit tool and with a bash command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env


async def test_review_lists_then_undoes_by_id_and_by_file(
    tmp_path: Path, project: Path, make_app: Any, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    allow = {"edit": "allow", "bash": "allow"}
    # Git snapshots (the fake config turns them off): the edit journal sees only the edit tools.
    app = await make_app(permission=allow, snapshot=True)
    session = await app.create_session()
    calc = project / "calc.py"
    edit = {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}
    model.script(
        Turn.tool_call("edit", edit).tool_call("bash", {"command": "printf 'x = 1\\n' > made.py"}),
        Turn.text("Done."),
    )
    await app.prompt(session.id, [TextInput(text="fix it")])
    await app.close()
    assert calc.read_text() == "def add(a, b):\n    return a + b\n" and (project / "made.py").exists()

    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(
        fake_config(model, title_model, permission=allow, snapshot=True)
    )
    code, out, err = await agentls("review", session.id, "-C", str(project), cwd=project, env=env)
    assert code == 0, err
    lines = out.splitlines()
    calc_hunk = next(line.split()[0] for line in lines if "calc.py: line 2" in line)
    assert any("made.py: the new file" in line for line in lines)
    assert "  -    return a - b" in lines and "  +    return a + b" in lines

    calc.write_text("# the user's note\n" + calc.read_text())  # the user edits after the agent
    code, out, err = await agentls("review", session.id, "--undo", calc_hunk, cwd=project, env=env)
    assert code == 0, err
    assert f"undone: {calc_hunk}" in out
    assert calc.read_text() == "# the user's note\ndef add(a, b):\n    return a - b\n"

    code, out, err = await agentls("review", session.id, "--undo", "--file", "made.py", cwd=project, env=env)
    assert code == 0, err
    assert not (project / "made.py").exists()
    code, out, _ = await agentls("review", session.id, cwd=project, env=env)
    assert out.strip() == "Nothing to review."


async def test_review_conflicts_and_usage_mistakes(
    tmp_path: Path, project: Path, make_app: Any, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    app = await make_app(permission={"edit": "allow"})
    session = await app.create_session()
    calc = project / "calc.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Done."),
    )
    await app.prompt(session.id, [TextInput(text="fix it")])
    await app.close()
    mine = "def add(a, b):\n    return a + b  # checked by me\n"
    calc.write_text(mine)
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    code, out, err = await agentls("review", session.id, "--undo", "--all", cwd=project, env=env)
    assert code == 1
    assert "conflict:" in err and "you changed lines the agent wrote" in err
    assert "  now:       return a + b  # checked by me" in err
    assert calc.read_text() == mine
    code, _, err = await agentls("review", session.id, "--undo", cwd=project, env=env)
    assert code == 2 and "--all" in err
    code, _, err = await agentls("review", session.id, "--all", cwd=project, env=env)
    assert code == 2 and "go with --keep or --undo" in err
    code, _, err = await agentls("review", session.id, "--keep", "hnk_missing", cwd=project, env=env)
    assert code == 1 and "no hunk hnk_missing" in err and "Traceback" not in err
    code, out, _ = await agentls("review", session.id, "--keep", "--all", cwd=project, env=env)
    assert code == 0 and "kept:" in out
