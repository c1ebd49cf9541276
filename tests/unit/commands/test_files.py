"""Command files and config entries: front matter, precedence, and broken files."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.commands.catalog import load_catalog
from core.config.schema import CommandConfig


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project, the user's agentls config folder and a home folder, all empty."""
    project, config, home = tmp_path / "project", tmp_path / "config", tmp_path / "home"
    for folder in (project, config, home):
        folder.mkdir()
    return project, config, home


def test_front_matter_sets_description_agent_model_subtask_and_hint(places: tuple[Path, Path, Path]) -> None:
    project, config, home = places
    write(
        project / ".agentls" / "command" / "review.md",
        "---\ndescription: Review a file\nagent: plan\nmodel: fake/m\nsubtask: true\n"
        "argument-hint: <file>\n---\nReview $ARGUMENTS for bugs.\n",
    )
    write(project / ".agentls" / "command" / "plain.md", "\n\nJust do it\nsecond line\n")
    catalog = load_catalog({}, project, config, home)
    review = catalog.commands["review"]
    assert (review.description, review.agent, review.model, review.subtask, review.hint) == (
        "Review a file",
        "plan",
        "fake/m",
        True,
        "<file>",
    )
    assert review.template == "Review $ARGUMENTS for bugs."
    assert review.source == str(project / ".agentls" / "command" / "review.md")
    plain = catalog.commands["plain"]  # no front matter: the first line describes it
    assert (plain.description, plain.agent, plain.subtask) == ("Just do it", None, False)
    assert catalog.errors == []


def test_opencode_and_claude_code_folders_are_read_with_claude_subfolders_as_namespaces(
    places: tuple[Path, Path, Path],
) -> None:
    project, config, home = places
    write(project / ".opencode" / "command" / "oc.md", "from opencode")
    write(project / ".claude" / "commands" / "frontend" / "component.md", "make a component $1")
    write(home / ".claude" / "commands" / "mine.md", "user claude command")
    write(home / ".config" / "opencode" / "command" / "ocuser.md", "user opencode command")
    catalog = load_catalog({}, project, config, home)
    assert {"oc", "frontend:component", "mine", "ocuser"} <= set(catalog.commands)


@pytest.mark.parametrize(
    ("files", "winner"),
    [
        # project over user, at every tool's folder
        ({"user-agentls": "U", "project-claude": "P"}, "P"),
        ({"user-claude": "U", "project-claude": "P"}, "P"),
        # agentls over OpenCode over Claude Code at the same level
        ({"project-claude": "C", "project-opencode": "O", "project-agentls": "A"}, "A"),
        ({"project-claude": "C", "project-opencode": "O"}, "O"),
        ({"user-claude": "C", "user-agentls": "A"}, "A"),
        # the config key: above the user's files, below the project's
        ({"user-agentls": "U", "config": "K"}, "K"),
        ({"config": "K", "project-claude": "P"}, "P"),
    ],
)
def test_precedence(places: tuple[Path, Path, Path], files: dict[str, str], winner: str) -> None:
    project, config, home = places
    folders = {
        "user-claude": home / ".claude" / "commands",
        "user-agentls": config / "command",
        "project-claude": project / ".claude" / "commands",
        "project-opencode": project / ".opencode" / "command",
        "project-agentls": project / ".agentls" / "command",
    }
    configured: dict[str, CommandConfig] = {}
    for place, template in files.items():
        if place == "config":
            configured["fix"] = CommandConfig(template=template)
        else:
            write(folders[place] / "fix.md", template)
    assert load_catalog(configured, project, config, home).commands["fix"].template == winner


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("---\ndescription: ok\nagent: [unclosed\n---\nbody\n", 4, "not valid YAML"),
        ("---\ndescription: fine\nsubtask: maybe\n---\nbody\n", 3, "'subtask' must be true or false"),
        ("---\ndescription: fine\n\nmodel: gpt-4\n---\nbody\n", 4, "'model' must be provider/model"),
        ("---\ndescription: x\nbody without the closing line\n", 1, "never closed"),
        ("---\ndescription: only front matter\n---\n\n", 1, "no template"),
        ("---\n- a\n- list\n---\nbody\n", 2, "must be keys and values"),
        ("---\ndescription:\n  nested: map\n---\nbody\n", 2, "'description' must be text"),
    ],
)
def test_a_broken_file_is_named_with_its_line_and_the_others_still_load(
    places: tuple[Path, Path, Path], text: str, line: int, reason: str
) -> None:
    project, config, home = places
    folder = project / ".agentls" / "command"
    broken = write(folder / "broken.md", text)
    write(folder / "good.md", "a good command")
    write(config / "command" / "other.md", "another good one")
    catalog = load_catalog({}, project, config, home)
    assert "broken" not in catalog.commands
    assert {"good", "other"} <= set(catalog.commands)
    [error] = catalog.errors
    assert (error.path, error.line) == (broken, line)
    assert str(error).startswith(f"{broken}:{line}: ")
    assert reason in str(error)


def test_a_file_that_is_not_utf8_is_an_error_naming_it(places: tuple[Path, Path, Path]) -> None:
    project, config, home = places
    bad = project / ".agentls" / "command" / "latin.md"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"caf\xe9 $ARGUMENTS")
    catalog = load_catalog({}, project, config, home)
    [error] = catalog.errors
    assert str(error).startswith(f"{bad}:1: not UTF-8")


def test_a_user_command_cannot_replace_a_built_in_one(places: tuple[Path, Path, Path]) -> None:
    project, config, home = places
    path = write(project / ".claude" / "commands" / "compact.md", "my own compact")
    catalog = load_catalog({}, project, config, home)
    assert catalog.commands["compact"].kind == "builtin"
    assert catalog.warnings == [f"command /compact of {path} is not used: /compact is built in"]


def test_a_claude_code_model_without_provider_is_left_out_not_an_error(
    places: tuple[Path, Path, Path],
) -> None:
    project, config, home = places
    text = (
        "---\nmodel: claude-3-5-haiku-20241022\nallowed-tools: Bash(git diff:*)\n---\nSummarise $ARGUMENTS\n"
    )
    write(project / ".claude" / "commands" / "sum.md", text)
    write(project / ".agentls" / "command" / "strict.md", "---\nmodel: claude-3-5-haiku-20241022\n---\nx\n")
    catalog = load_catalog({}, project, config, home)
    assert catalog.commands["sum"].model is None  # the session's model answers
    assert catalog.commands["sum"].template == "Summarise $ARGUMENTS"
    assert [e.path.name for e in catalog.errors] == [
        "strict.md"
    ]  # agentls's own files must say provider/model
