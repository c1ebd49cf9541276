"""``python -m bench.evals --model provider/model [--runs N] [--task NAME …]``: run the evals.

The model is any litellm model id, configured as for ``agentls run`` (your agentls.json and the
provider's key in the environment). Each run builds a fresh repository in a temporary folder
(``--keep DIR`` keeps them there), runs ``agentls run --yes`` in it and checks what it left.
``--opencode PATH`` runs every task through that ``opencode`` too (``opencode run --auto``, with
OpenCode's own config for the model), for a row of each harness per task and model.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bench.evals.opencode import run_opencode
from bench.evals.report import Outcome, table
from bench.evals.runner import run_task
from bench.evals.tasks import TASKS
from core.llm.catalog import family_of


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evals", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", help="provider/model (repeat for several)")
    parser.add_argument("--runs", type=int, default=1, help="runs per task and model (default 1)")
    parser.add_argument("--task", action="append", choices=sorted(TASKS), help="only these tasks")
    parser.add_argument("--keep", help="keep each run's repository under this folder")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument("--opencode", metavar="PATH", help="also run each task through this opencode")
    args = parser.parse_args(argv)
    if args.list:
        for task in TASKS.values():
            print(f"{task.name}: {task.prompt}")
        return 0
    if not args.model:
        parser.error("--model provider/model is needed (any litellm model id)")
    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for model in args.model:
        provider, _, name = model.partition("/")
        family = family_of(provider, name)
        for task in [TASKS[n] for n in args.task or TASKS]:
            for _ in range(args.runs):
                for harness in ("agentls", "OpenCode") if args.opencode else ("agentls",):
                    if harness == "agentls":
                        repo, run = await run_task(task, model, {}, keep)
                    else:
                        repo, run = await run_opencode(task, model, {}, args.opencode, keep)
                    failure = task.check(repo, run)
                    if run.exit_code != 0 and failure is None:
                        failure = f"{harness} exited {run.exit_code}: {run.stderr.strip()[-200:]}"
                    label = f"{family} ({model})" if harness == "agentls" else f"{family} ({model}, OpenCode)"
                    outcomes.append(Outcome(task.name, label, run, failure))
                    said = "pass" if failure is None else f"FAIL: {failure}"
                    print(f"{task.name} [{model}, {harness}]: {said}", file=sys.stderr)
    print(table(outcomes))
    return 0 if all(o.failure is None for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
