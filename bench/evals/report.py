"""The table an eval prints: per task and model family, pass rate, tokens, cost, time and steps."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bench.evals.model import Run


@dataclass
class Outcome:
    """One run of one task and what its check said (None: passed)."""

    task: str
    family: str
    run: Run
    failure: str | None


HEADER = ("task", "family", "pass", "input", "cached", "output", "cost $", "wall s", "steps", "why it failed")


def table(outcomes: Sequence[Outcome]) -> str:
    """The report: one row per task and family (medians of tokens, time and steps), then the total."""
    groups: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault((outcome.task, outcome.family), []).append(outcome)
    rows = [_row(task, family, runs) for (task, family), runs in groups.items()]
    passed = sum(o.failure is None for o in outcomes)
    cost = sum(o.run.cost for o in outcomes)
    rate = 100 * passed / max(len(outcomes), 1)
    total = f"{passed}/{len(outcomes)} runs passed ({rate:.0f} %), cost ${cost:.4f}"
    widths = [max(len(str(r[i])) for r in (HEADER, *rows)) for i in range(len(HEADER) - 1)]
    lines = []
    for row in (HEADER, *rows):
        cells = [str(c).ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, str(row[-1])]).rstrip())
    return "\n".join([*lines, "", total])


def _row(task: str, family: str, runs: list[Outcome]) -> tuple[str, ...]:
    def median(values: list[float]) -> float:
        return statistics.median(values) if values else 0.0

    passed = sum(o.failure is None for o in runs)
    failures = sorted({o.failure for o in runs if o.failure})
    return (
        task,
        family,
        f"{passed}/{len(runs)}",
        f"{median([o.run.input_tokens for o in runs]):.0f}",
        f"{median([o.run.cached_tokens for o in runs]):.0f}",
        f"{median([o.run.output_tokens for o in runs]):.0f}",
        f"{sum(o.run.cost for o in runs):.4f}",
        f"{median([o.run.seconds for o in runs]):.1f}",
        f"{median([o.run.steps for o in runs]):.0f}",
        "; ".join(failures)[:160],
    )
