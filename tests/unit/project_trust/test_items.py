"""What counts as a project's own files (core.project_trust.items) against what the core reads only
when trusted, and the question each front end asks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.agent.files import agent_dirs
from core.commands.files import command_folders
from core.config.loader import FILE_NAMES, PROJECT_SUBDIR
from core.project_trust import answer, items, question_for
from core.tools.skill import skill_dirs
from core.trust import is_trusted, trust_all


@pytest.fixture(autouse=True)
def fresh_process_trust() -> None:
    trust_all()


def test_items_cover_every_project_path_the_core_reads_only_when_trusted(tmp_path: Path) -> None:
    worktree, user = tmp_path / "p", tmp_path / "user"
    server = [*FILE_NAMES, *(f"{PROJECT_SUBDIR}/{name}" for name in FILE_NAMES)]
    commands = command_folders(worktree, user, tmp_path)
    server += [str(f.path.relative_to(worktree)) for f in commands if f.level == "project"]
    server += [str(d.relative_to(worktree)) for d in agent_dirs(worktree, user) if d.is_relative_to(worktree)]
    server += [str(d.relative_to(worktree)) for d in skill_dirs(worktree, user) if d.is_relative_to(worktree)]
    uncovered = [p for p in server if not any(p == i or p.startswith(i + "/") for i in items.ITEMS)]
    assert not uncovered, f"core/project_trust/items.py ITEMS misses {uncovered}"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ([], []),
        (["AGENTS.md", "CLAUDE.md", ".claude/settings.json", "src/x.py"], []),
        (["agentls.json"], ["agentls.json"]),
        (["agentls.jsonc"], ["agentls.jsonc"]),
        ([".agentls/agentls.json"], [".agentls"]),
        ([".agentls/commands/x.md"], [".agentls"]),
        ([".agentls/skills/s/SKILL.md"], [".agentls"]),
        ([".claude/commands/x.md"], [".claude/commands"]),
        ([".claude/settings.json!hooks", ".claude/settings.local.json"], [".claude/settings.json"]),
        ([".claude/settings.local.json!hooks"], [".claude/settings.local.json"]),
        ([".opencode/command/x.md", ".opencode/commands/y.md"], [".opencode/command", ".opencode/commands"]),
        (["sub/agentls.json"], ["sub/agentls.json"]),  # between the worktree and the working directory
        (["sub/.agentls/agentls.jsonc"], ["sub/.agentls/agentls.jsonc"]),
        (["other/agentls.json"], []),  # a sibling folder the agent does not read config from
    ],
)
def test_what_counts(tmp_path: Path, files: list[str], expected: list[str]) -> None:
    worktree = tmp_path / "p"
    (worktree / "sub" / "deeper").mkdir(parents=True)
    for entry in files:  # "name!hooks": a settings file that configures a hook
        name, _, hooks = entry.partition("!")
        (worktree / name).parent.mkdir(parents=True, exist_ok=True)
        (worktree / name).write_text('{"hooks": {"Stop": []}}' if hooks else "{}")
    assert items.found(worktree / "sub" / "deeper", worktree) == expected


def test_a_folder_inside_a_git_worktree_asks_about_the_worktree(tmp_path: Path) -> None:
    worktree = tmp_path / "p"
    (worktree / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(worktree)], check=True)
    (worktree / "agentls.json").write_text("{}")
    question = question_for(worktree / "src", tmp_path / "data")
    assert question is not None and question.worktree == worktree.resolve()
    assert question.items == ["agentls.json"] and "agentls.json" in question.text()
    assert answer(question, trusted=False) is None
    assert not is_trusted(worktree) and not is_trusted(worktree / "src")
    assert question_for(worktree / "src", tmp_path / "data") is None  # decided for this process


def test_trust_is_remembered_and_a_store_that_cannot_be_written_still_trusts_for_now(tmp_path: Path) -> None:
    worktree = tmp_path / "p"
    worktree.mkdir()
    (worktree / "agentls.json").write_text("{}")
    question = question_for(worktree, tmp_path / "data")
    assert question is not None
    assert answer(question, trusted=True) is None
    assert question_for(worktree, tmp_path / "data") is None and is_trusted(worktree)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "trust.json").write_text("not json")
    question = question_for(worktree, tmp_path / "bad")
    assert question is not None  # an unreadable store trusts nothing
    warning = answer(question, trusted=True)
    assert warning is not None and "could not be remembered" in warning and "not valid JSON" in warning
    assert (tmp_path / "bad" / "trust.json").read_text() == "not json"  # the user's file is kept
    assert is_trusted(worktree)
