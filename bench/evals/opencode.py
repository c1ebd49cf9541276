"""One run of one task through OpenCode (``opencode run --format json``) instead of agentls, read
from the events it prints: the same ``Run`` the checks read, so both harnesses get the same table.

OpenCode takes the same ``provider/model`` ids for the common providers and reads its own config
(``~/.config/opencode``, or ``OPENCODE_CONFIG``); ``--auto`` answers its permission questions as
``agentls run --yes`` does.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from bench.evals.model import Call, Run, Task, build
from bench.evals.runner import IDENTITY, spawn


async def run_opencode(
    task: Task, model: str, env: dict[str, str], opencode: str, keep: Path | None = None
) -> tuple[Path, Run]:
    """Run ``task`` once with ``opencode`` against ``model``; the repository and the run."""
    root = Path(tempfile.mkdtemp(prefix=f"eval-opencode-{task.name}-", dir=keep))
    repo = root / "repo"
    repo.mkdir()
    head = build(task, repo)
    command = [opencode, "run", "--format", "json", "--auto", "--model", model]
    if task.agent:
        command += ["--agent", task.agent]
    # PWD too: OpenCode takes its project folder from it, not from the directory it starts in.
    child_env = {**os.environ, **IDENTITY, **env, "PWD": str(repo)}
    code, out, err, seconds = await spawn(command, task.prompt, repo, child_env)
    run = read_events(out, head)
    run.exit_code, run.seconds, run.stderr = code, seconds, err[-2000:]
    return repo, run


def read_events(lines: str, head: str) -> Run:
    """The run that OpenCode's JSON events (one a line) describe: its calls by step, the text of its
    last step with text as the answer, its tokens and cost. Lines that are not events are skipped."""
    run = Run(exit_code=-1, answer="", calls=[], head_before=head)
    texts: list[str] = []
    for line in lines.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        part: dict[str, Any] = event.get("part") or {}
        kind = event.get("type")
        if kind == "tool_use":
            state = part.get("state") or {}
            run.calls.append(Call(run.steps, str(part.get("tool", "")), dict(state.get("input") or {})))
        elif kind == "text":
            texts.append(str(part.get("text", "")))
        elif kind == "step_finish":
            run.steps += 1
            tokens = part.get("tokens") or {}
            run.input_tokens += int(tokens.get("input", 0))
            run.cached_tokens += int((tokens.get("cache") or {}).get("read", 0))
            run.output_tokens += int(tokens.get("output", 0))
            run.cost += float(part.get("cost", 0) or 0)
            if texts:
                run.answer = "\n".join(texts)
            texts = []
    return run
