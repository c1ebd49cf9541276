"""bench/evals --opencode: the same tasks through a real OpenCode (``scripts/tools`` installs it from
npm) against the scripted fake model, its JSON events read into the run the checks judge: a good
scripted run passes a task's check and a bad one fails it, as for agentls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.evals.opencode import read_events, run_opencode
from bench.evals.tasks import TASKS
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import tool

# Two kinds of check: the tests pass after an edit, git history after a bash command (each OpenCode run
# is a few seconds of its own start-up: the full set is `python -m bench.evals --opencode`).
NAMES = ["fix-bug", "no-commit-unless-asked"]


@pytest.fixture
async def config(tmp_path: Path) -> AsyncIterator[tuple[FakeModelServer, dict[str, str]]]:
    async with FakeModelServer() as main, FakeModelServer() as titles:
        titles.script(*[Turn.text("A title") for _ in range(20)])
        servers = (("fake", main, "m"), ("titles", titles, "t"))
        content = {
            "$schema": "https://opencode.ai/config.json",
            "model": "fake/m",
            "small_model": "titles/t",
            "provider": {
                name: {
                    "npm": "@ai-sdk/openai-compatible",
                    "options": {"baseURL": server.openai_base, "apiKey": "offline"},
                    "models": {model: {}},
                }
                for name, server, model in servers
            },
        }
        path = tmp_path / "opencode.json"
        path.write_text(json.dumps(content))
        yield main, {"OPENCODE_CONFIG": str(path), "HOME": str(tmp_path / "home")}


@pytest.mark.parametrize("name", NAMES)
async def test_a_good_opencode_run_passes_and_a_bad_one_fails(
    name: str, config: tuple[FakeModelServer, dict[str, str]], tmp_path: Path
) -> None:
    main, env = config
    task = TASKS[name]
    failures = {}
    for kind, script in (("good", task.good), ("bad", task.bad)):
        main.script(*script())
        repo, run = await run_opencode(task, "fake/m", env, tool("opencode"), tmp_path)
        assert run.exit_code == 0, run.stderr
        assert run.steps == len(script()), f"{kind}: OpenCode took {run.steps} steps: {run.stderr}"
        failures[kind] = task.check(repo, run)
    assert failures["good"] is None, f"the good run failed: {failures['good']}"
    assert failures["bad"] is not None, "the bad run passed the check"


def test_events_become_the_run_the_checks_read() -> None:
    first = {"type": "step_finish", "part": {"tokens": {"input": 10, "output": 2, "cache": {"read": 4}}}}
    lines = "\n".join(
        [
            "not json",
            json.dumps({"type": "tool_use", "part": {"tool": "bash", "state": {"input": {"command": "ls"}}}}),
            json.dumps(first),
            json.dumps({"type": "text", "part": {"text": "It is 42."}}),
            json.dumps({"type": "step_finish", "part": {"tokens": {"input": 5, "output": 3}, "cost": 0.5}}),
            "[1, 2]",
        ]
    )
    run = read_events(lines, "abc")
    assert run.commands() == ["ls"] and run.calls[0].step == 0
    assert (run.answer, run.steps, run.head_before) == ("It is 42.", 2, "abc")
    assert (run.input_tokens, run.cached_tokens, run.output_tokens, run.cost) == (15, 4, 5, 0.5)
