"""bench/evals against the scripted fake model: every task's check passes on a scripted good run and
fails on a scripted bad one, each run a real ``agentls run`` in a fresh git repository."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.evals.model import Task
from bench.evals.report import Outcome, table
from bench.evals.runner import run_task
from bench.evals.tasks import TASKS
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn


@pytest.fixture
async def models() -> AsyncIterator[tuple[FakeModelServer, FakeModelServer]]:
    async with FakeModelServer() as main, FakeModelServer() as titles:
        titles.script(*[Turn.text("A title") for _ in range(10)])
        yield main, titles


def test_there_are_at_least_twenty_tasks() -> None:
    assert len(TASKS) >= 20


@pytest.mark.parametrize("name", sorted(TASKS))
async def test_each_check_passes_a_good_run_and_fails_a_bad_one(
    name: str, models: tuple[FakeModelServer, FakeModelServer], tmp_path: Path
) -> None:
    task: Task = TASKS[name]
    main, titles = models
    env = {
        "AGENTLS_CONFIG_CONTENT": json.dumps(fake_model_config(main, titles)),
        "AGENTLS_CONFIG_DIR": str(tmp_path),
    }
    outcomes = []
    for kind, script in (("good", task.good), ("bad", task.bad)):
        main.script(*script())
        repo, run = await run_task(task, "fake/m", env, tmp_path)
        assert run.exit_code == 0, run.stderr
        assert run.steps == len(script()), f"{kind}: the scripted run took {run.steps} steps"
        outcomes.append(Outcome(task.name, kind, run, task.check(repo, run)))
    good, bad = outcomes
    assert good.failure is None, f"the good run failed: {good.failure}"
    assert bad.failure is not None, "the bad run passed the check"
    report = table(outcomes)
    assert f"{name}  good    1/1" in report and f"{name}  bad     0/1" in report
