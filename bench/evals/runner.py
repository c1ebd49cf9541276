"""One run of one task: build its repository, run ``agentls run`` in it, read the session back."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.evals.model import Call, Run, Task, build
from core.config.paths import worktree_of
from core.message.models import AssistantMessage, StepFinishPart, TextPart, ToolPart
from core.storage import DB_NAME, Store

TIMEOUT_S = 600.0  # one run; a real model on a slow machine may need minutes
AGENTLS = [sys.executable, "-m", "lsp_server.cli"]
# Commits the agent makes in a throw-away repository need an author, whatever the user's git config.
IDENTITY = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
}


async def run_task(task: Task, model: str, env: dict[str, str], keep: Path | None = None) -> tuple[Path, Run]:
    """Run ``task`` once against ``model`` (``provider/model``); the repository and the run."""
    root = Path(tempfile.mkdtemp(prefix=f"eval-{task.name}-", dir=keep))
    repo, data = root / "repo", root / "data"
    repo.mkdir()
    head = build(task, repo)
    command = [*AGENTLS, "run", "--yes", "--model", model, "-C", str(repo)]
    if task.agent:
        command += ["--agent", task.agent]
    child_env = {**os.environ, **IDENTITY, **env, "AGENTLS_DATA_DIR": str(data)}
    child_env["AGENTLS_CONFIG_CONTENT"] = json.dumps(unsandboxed(child_env.get("AGENTLS_CONFIG_CONTENT")))
    code, _, err, seconds = await spawn(command, task.prompt, repo, child_env)
    run = await _read(repo, data, head)
    run.exit_code, run.seconds, run.stderr = code, seconds, err[-2000:]
    return repo, run


async def spawn(
    command: list[str], prompt: str, cwd: Path, env: dict[str, str]
) -> tuple[int, str, str, float]:
    """Run a harness's ``command prompt`` in ``cwd`` without a terminal, bounded by ``TIMEOUT_S``:
    its exit code (-1 when killed), stdout, stderr and wall seconds."""
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *command,
        prompt,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        out, err = b"", f"no answer within {TIMEOUT_S:g} s".encode()
    code = proc.returncode if proc.returncode is not None else -1
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - started


def unsandboxed(content: str | None) -> dict[str, Any]:
    """The config layer a run gets: ``content`` (the caller's AGENTLS_CONFIG_CONTENT, if any) with
    the sandbox off. The evals measure what the model chooses to do; the sandbox would block the
    destructive git command a check is there to catch (in a throw-away repository)."""
    layer = json.loads(content) if content else {}
    return {**layer, "sandbox": {"mode": "full"}}


async def _read(repo: Path, data: Path, head: str) -> Run:
    """The session the run left in ``data``: its answer, calls, tokens and cost."""
    run = Run(exit_code=-1, answer="", calls=[], head_before=head)
    if not (data / DB_NAME).exists():
        return run
    store = await Store.open(data / DB_NAME)
    try:
        project = await store.ensure_project(worktree_of(repo))
        sessions = [s for s in await store.list_sessions(project.id, limit=10) if not s.parentID]
        if not sessions:
            return run
        messages = await store.list_messages(sessions[0].id)
    finally:
        await store.close()
    step = 0
    for message in messages:
        if not isinstance(message.info, AssistantMessage):
            continue
        texts = []
        for part in message.parts:
            if isinstance(part, ToolPart):
                run.calls.append(Call(step, part.tool, dict(part.state.input or {})))
            elif isinstance(part, TextPart) and not part.synthetic:
                texts.append(part.text)
            elif isinstance(part, StepFinishPart):
                step += 1
                run.steps += 1
                tokens = part.tokens
                run.input_tokens += tokens.input
                run.cached_tokens += tokens.cache.read
                run.output_tokens += tokens.output
                run.cost += part.cost
        if texts:
            run.answer = "\n".join(texts)
    return run
