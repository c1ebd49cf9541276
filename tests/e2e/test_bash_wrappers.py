"""A user's rule about ``rm`` holds for ``rm`` however the model wraps it: ``agentls run`` as a user
runs it (a real subprocess, real commands, the fake model), with the rules alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env

WRAPPED_DELETES = [
    "/bin/rm calc.py",
    "env rm calc.py",
    "command rm calc.py",
    "nice -n 5 rm calc.py",
    "timeout 5 rm calc.py",
    "nohup rm calc.py",
    "stdbuf -oL rm calc.py",
    "setsid -w rm calc.py",
    "sh -c 'rm calc.py'",
    "find . -name calc.py -delete",
    "find . -name calc.py -exec rm {} +",
]


def env_with(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, **extra: Any
) -> dict[str, str]:
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, **extra))
    return env


def tool_results(model: FakeModelServer) -> list[str]:
    """What the model was told about its tool calls, last request's view."""
    messages = model.requests[-1].messages
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


async def test_a_deny_rule_for_rm_holds_for_every_wrapper_even_with_yes(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    # --yes answers every question "once": only the rule stands between the model and the file.
    model.script(*(Turn.tool_call("bash", {"command": c}) for c in WRAPPED_DELETES), Turn.text("Done."))
    env = env_with(tmp_path, model, title_model, permission={"bash": {"rm *": "deny"}})
    code, _, err = await agentls("run", "delete calc.py", "--yes", cwd=project, env=env)
    assert code == 0, err
    assert (project / "calc.py").exists()
    results = tool_results(model)
    assert len(results) == len(WRAPPED_DELETES)
    for command, result in zip(WRAPPED_DELETES, results, strict=True):
        assert "is denied by the configuration" in result and "rm *" in result, (command, result)


@pytest.mark.parametrize("command", ["nice rm calc.py", "/usr/bin/env -i rm calc.py", "busybox rm calc.py"])
async def test_an_ask_rule_for_rm_asks_for_a_wrapped_rm_and_says_what_runs_it(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, command: str
) -> None:
    model.script(Turn.tool_call("bash", {"command": command}), Turn.text("never sent"))
    permission = {"bash": {"*": "allow", "rm *": "ask"}, "edit": "allow"}
    env = env_with(tmp_path, model, title_model, permission=permission)
    code, _, err = await agentls("run", "delete calc.py", cwd=project, env=env)
    assert code == 1 and "Traceback" not in err
    # One dialog for the wrapper and what it runs; the rule for rm is what made it ask.
    assert f"needed permission for bash ({command}, " in err and ", rm calc.py) and" in err, err
    assert (project / "calc.py").exists()


@pytest.mark.parametrize(
    ("command", "needed"),
    [
        ("sort -uo out.txt calc.py", "edit (out.txt)"),
        ("grep -r TOKEN .", "read (.env)"),
        ("rg -uu TOKEN", "read (.env)"),
        ("find . -name .env -exec cat {} +", "read (.env)"),
    ],
)
async def test_writes_and_secret_searches_ask_under_the_defaults(
    tmp_path: Path,
    project: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
    command: str,
    needed: str,
) -> None:
    (project / ".env").write_text("TOKEN=secret-value\n")
    model.script(Turn.tool_call("bash", {"command": command}), Turn.text("never sent"))
    env = env_with(tmp_path, model, title_model)
    code, _, err = await agentls("run", "sort and search", cwd=project, env=env)
    assert code == 1 and "Traceback" not in err
    assert f"needed permission for {needed}" in err, err
    assert not (project / "out.txt").exists()
    assert all("secret-value" not in r for r in tool_results(model))
