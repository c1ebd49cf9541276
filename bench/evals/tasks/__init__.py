"""Every eval task, by name."""

from __future__ import annotations

from bench.evals.model import Task
from bench.evals.tasks import code, git_safety, guarded

TASKS: dict[str, Task] = {t.name: t for t in (*code.TASKS, *git_safety.TASKS, *guarded.TASKS)}
