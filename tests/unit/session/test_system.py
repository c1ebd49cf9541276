"""System prompt pieces: instruction files found walking up, cached by mtime; titles fall back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.session.system import (
    MCP_INSTRUCTIONS_MAX,
    InstructionFiles,
    build_system,
    environment,
    family_prompt,
)
from core.session.title import fallback_title, provisional_title, replaceable


def test_nearest_instruction_name_wins_and_every_level_is_included(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    sub = root / "pkg" / "mod"
    sub.mkdir(parents=True)
    (root / "AGENTS.md").write_text("root rules")
    (root / "pkg" / "AGENTS.md").write_text("pkg rules")
    (root / "CLAUDE.md").write_text("never read: AGENTS.md exists")
    config = tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("global rules")
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("style rules")
    files = InstructionFiles(config)
    blocks = files.render(sub, root, ["docs/*.md"])
    assert [b.splitlines()[0] for b in blocks] == [
        f"Instructions from: {root / 'AGENTS.md'}",
        f"Instructions from: {root / 'pkg' / 'AGENTS.md'}",
        f"Instructions from: {config / 'AGENTS.md'}",
        f"Instructions from: {root / 'docs' / 'style.md'}",
    ]
    assert not any("never read" in b for b in blocks)


def test_instruction_files_are_reread_only_when_changed(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("one")
    files = InstructionFiles(tmp_path / "none")
    assert files.read(path) == "one"
    st = path.stat()
    path.write_text("three")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, but the size differs
    assert files.read(path) == "three"
    path.write_text("THREE")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime and size: the cache answers
    assert files.read(path) == "three"
    path.unlink()
    assert files.read(path) is None


def test_system_has_the_family_prompt_then_the_project_context(tmp_path: Path) -> None:
    env = environment("anthropic/claude", tmp_path, True)
    system = build_system(
        base=family_prompt("anthropic"),
        user_system="be terse",
        env=env,
        instructions=["Instructions from: x\nrules"],
        skills=[("pdf", "work with PDFs")],
    )
    assert len(system) == 2
    assert system[0].startswith("You are agentls") and system[0].endswith("be terse")
    assert "Is directory a git repo: yes" in system[1] and "- pdf: work with PDFs" in system[1]
    assert family_prompt("unknown-family") == family_prompt("other")


def test_fallback_title_is_the_first_line_trimmed() -> None:
    assert fallback_title("\n  Fix the   login bug\nmore") == "Fix the login bug"
    long = fallback_title("x" * 80)
    assert len(long) == 50 and long.endswith("…")
    assert fallback_title("   ") == "Untitled"


@pytest.mark.parametrize(
    ("prompt", "provisional"),
    [
        ("Fix the flaky test\nin test_net.py", "Fix the flaky test"),
        ("\n\n   indented first line  \n", "indented first line"),
        ("x" * 80, "x" * 49 + "…"),
        ("", None),  # an image alone: the placeholder stays until the model's title
        ("  \n\t", None),
    ],
)
def test_provisional_title_is_the_prompts_first_line(prompt: str, provisional: str | None) -> None:
    assert provisional_title(prompt) == provisional


@pytest.mark.parametrize(
    ("current", "provisional", "replaced"),
    [
        ("New session - 2026-12-07T02:46:27+00:00", None, True),
        ("New session - 2026-12-07T02:46:27+00:00", "Fix the test", True),
        ("Fix the test", "Fix the test", True),  # still the provisional title
        ("Mine", "Fix the test", False),  # renamed by the user meanwhile
        ("Fix the test", None, False),  # chosen at creation
    ],
)
def test_only_a_title_nobody_chose_is_replaced(current: str, provisional: str | None, replaced: bool) -> None:
    assert replaceable(current, provisional) is replaced


def test_mcp_instructions_follow_the_projects_and_are_cut_at_a_fixed_size() -> None:
    long = "x" * (MCP_INSTRUCTIONS_MAX + 500)
    system = build_system(
        base="base",
        user_system=None,
        env="ENV",
        instructions=["Instructions from: /p/AGENTS.md\nproject rules"],
        skills=[("s", "a skill")],
        mcp=[("docs", "Search the docs before answering."), ("big", long)],
    )
    context = system[1]
    order = [
        context.index(x) for x in ("ENV", "project rules", "MCP server docs:", "MCP server big:", "a skill")
    ]
    assert order == sorted(order)
    assert "Instructions from the MCP server docs:\nSearch the docs before answering." in context
    assert "x" * MCP_INSTRUCTIONS_MAX + "\n[… 500 more characters of these instructions left out]" in context
    assert "x" * (MCP_INSTRUCTIONS_MAX + 1) not in context


def test_no_mcp_instructions_add_nothing() -> None:
    args = {"base": "b", "user_system": None, "env": "E", "instructions": ["I"], "skills": []}
    assert build_system(**args, mcp=[]) == build_system(**args) == ["b", "E\n\nI"]
