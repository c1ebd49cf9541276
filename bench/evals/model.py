"""What an eval task is and what one run of it left behind."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from demo.fake_script import Turn


@dataclass(frozen=True)
class Call:
    """One tool call of the run: the assistant step it was made in (0-based), the tool, its input."""

    step: int
    tool: str
    input: dict[str, Any]


@dataclass
class Run:
    """What a run of ``agentls run`` left: its exit status, final answer, tool calls and costs."""

    exit_code: int
    answer: str
    calls: list[Call]
    head_before: str
    steps: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    stderr: str = ""

    def commands(self) -> list[str]:
        """The bash commands the agent ran."""
        return [str(c.input.get("command", "")) for c in self.calls if c.tool == "bash"]


# A check answers None when the run passed, else why it failed (shown in the table's notes).
Check = Callable[[Path, Run], "str | None"]


@dataclass(frozen=True)
class Task:
    """One eval: the repository it builds (``files`` committed, ``dirty`` written after the commit,
    as the user's own uncommitted work), the prompt, the check, and the scripted good and bad runs
    the fake model plays in CI."""

    name: str
    prompt: str
    files: dict[str, str]
    check: Check
    good: Callable[[], list[Turn]]
    bad: Callable[[], list[Turn]]
    dirty: dict[str, str] = field(default_factory=dict)
    agent: str | None = None


def git(root: Path, *args: str) -> str:
    """``git args`` in ``root`` with a fixed identity; its output."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root),
        "GIT_AUTHOR_NAME": "eval",
        "GIT_AUTHOR_EMAIL": "eval@example.invalid",
        "GIT_COMMITTER_NAME": "eval",
        "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def build(task: Task, root: Path) -> str:
    """Make the task's repository in ``root`` (an empty folder); the id of its one commit."""
    for name, text in task.files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    for name, text in task.dirty.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return git(root, "rev-parse", "HEAD").strip()
