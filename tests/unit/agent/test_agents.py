"""Agents: built-ins, config overrides, Markdown agents, bad files, effective and child rulesets."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.agent import Agents, derive_child_rules, effective_ruleset
from core.agent.frontmatter import FrontMatterError, split_front_matter
from core.config.schema import Config
from core.errors import NotFoundError
from core.permission.rules import Rule, disabled, evaluate

FIXTURES = Path(__file__).parents[2] / "fixtures" / "agent"
TOOLS = [
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "glob",
    "list",
    "todowrite",
    "todoread",
    "task",
    "question",
    "webfetch",
    "skill",
]


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    path = tmp_path / "user-config"
    path.mkdir()
    return path


def load(worktree: Path, user_dir: Path, **config: object) -> Agents:
    return Agents.load(Config.model_validate(config), worktree, user_config_dir=user_dir)


def rules_for(agents: Agents, name: str, config: Config | None = None) -> list[Rule]:
    return effective_ruleset(agents.get(name), config or Config())


def test_builtins(worktree: Path, user_dir: Path) -> None:
    agents = load(worktree, user_dir)
    assert [a.name for a in agents.list()] == [
        "build",
        "plan",
        "general",
        "explore",
        "compaction",
        "title",
        "summary",
    ]
    assert agents.default().name == "build"
    assert [a.name for a in agents.primary()] == ["build", "plan"]
    assert [a.name for a in agents.subagents()] == ["general", "explore"]
    assert all(a.native for a in agents.list())
    assert agents.get("explore").prompt and "read-only" in (agents.get("explore").prompt or "")
    assert agents.warnings == []


def test_build_runs_under_the_safe_defaults(worktree: Path, user_dir: Path) -> None:
    rules = rules_for(load(worktree, user_dir), "build")
    assert evaluate("edit", "src/a.py", rules).action == "ask"
    assert evaluate("bash", "rm -rf x", rules).action == "ask"
    assert evaluate("bash", "git status", rules).action == "allow"
    assert evaluate("external_directory", "/etc/*", rules).action == "ask"
    assert evaluate("read", ".env", rules).action == "ask"
    assert disabled(TOOLS, rules) == set()


def test_plan_denies_edits_except_plan_files(worktree: Path, user_dir: Path) -> None:
    rules = rules_for(load(worktree, user_dir), "plan")
    assert evaluate("edit", "src/a.py", rules).action == "deny"
    assert evaluate("edit", ".agentls/plans/feature.md", rules).action == "allow"
    assert evaluate("bash", "ls", rules).action == "allow"
    assert disabled(TOOLS, rules) == set()  # edit stays visible for plan files


def test_explore_sees_only_read_only_tools(worktree: Path, user_dir: Path) -> None:
    rules = rules_for(load(worktree, user_dir), "explore")
    assert set(TOOLS) - disabled(TOOLS, rules) == {"read", "grep", "glob", "list"}
    assert evaluate("read", "src/.env", rules).action == "ask"
    assert evaluate("read", "src/main.py", rules).action == "allow"


def test_general_has_no_todo_and_hidden_agents_have_no_tools(worktree: Path, user_dir: Path) -> None:
    agents = load(worktree, user_dir)
    assert disabled(TOOLS, rules_for(agents, "general")) == {"todowrite", "todoread", "question"}
    for name in ("compaction", "title", "summary"):
        assert agents.get(name).hidden
        assert disabled(TOOLS, rules_for(agents, name)) == set(TOOLS)


def test_config_overrides_a_builtin_and_adds_an_agent(worktree: Path, user_dir: Path) -> None:
    agents = load(
        worktree,
        user_dir,
        agent={
            "build": {
                "model": "anthropic/claude",
                "temperature": 0.2,
                "permission": {"bash": {"rm *": "deny"}},
            },
            "docs": {"description": "Writes docs", "mode": "primary", "prompt": "Write docs."},
            "title": {"disable": True},
        },
        default_agent="docs",
    )
    build = agents.get("build")
    assert (build.model, build.temperature, build.native, build.mode) == (
        "anthropic/claude",
        0.2,
        True,
        "primary",
    )
    assert evaluate("bash", "rm -rf x", effective_ruleset(build, Config())).action == "deny"
    docs = agents.get("docs")
    assert (docs.native, docs.prompt, docs.mode) == (False, "Write docs.", "primary")
    assert agents.default().name == "docs"
    with pytest.raises(NotFoundError):
        agents.get("title")


def test_ruleset_layer_order(worktree: Path, user_dir: Path) -> None:
    config = Config.model_validate(
        {"permission": {"bash": "deny", "edit": "ask"}, "agent": {"build": {"permission": {"bash": "allow"}}}}
    )
    agents = Agents.load(config, worktree, user_config_dir=user_dir)
    plan_rules = effective_ruleset(agents.get("plan"), config)
    assert (
        evaluate("edit", ".agentls/plans/x.md", plan_rules).action == "ask"
    )  # user config beats agent defaults
    build_rules = effective_ruleset(agents.get("build"), config)
    assert evaluate("bash", "ls", build_rules).action == "allow"  # agent config beats user config
    session = [Rule("bash", "ls *", "deny")]
    assert (
        evaluate("bash", "ls -la", effective_ruleset(agents.get("build"), config, session)).action == "deny"
    )


def test_markdown_agent_from_project_and_user_folders(worktree: Path, user_dir: Path) -> None:
    (worktree / ".agentls" / "agent").mkdir(parents=True)
    shutil.copy(FIXTURES / "reviewer.md", worktree / ".agentls" / "agent" / "reviewer.md")
    (user_dir / "agent").mkdir()
    (user_dir / "agent" / "reviewer.md").write_text("---\ndescription: user copy\nmode: primary\n---\nold\n")
    (user_dir / "agent" / "helper.md").write_text("No front matter: all prompt.\n")
    agents = load(worktree, user_dir)
    reviewer = agents.get("reviewer")
    assert reviewer.description == "Reviews changes for bugs and style"  # the project's file wins
    assert (reviewer.mode, reviewer.model, reviewer.temperature, reviewer.steps) == (
        "subagent",
        "openai/gpt-4o-mini",
        0.1,
        12,
    )
    assert reviewer.prompt == "You review code. Point out bugs first, then style."
    assert reviewer.source == str(worktree / ".agentls" / "agent" / "reviewer.md")
    rules = effective_ruleset(reviewer, Config())
    assert evaluate("edit", "a.py", rules).action == "deny"
    assert evaluate("bash", "git diff HEAD", rules).action == "allow"
    assert evaluate("bash", "make", rules).action == "ask"
    assert evaluate("question", "*", rules).action == "deny"  # a custom subagent cannot ask the user
    assert "reviewer" in [a.name for a in agents.subagents()]
    assert agents.get("helper").prompt == "No front matter: all prompt."


def test_bad_agent_files_are_reported_and_skipped(worktree: Path, user_dir: Path) -> None:
    folder = worktree / ".agentls" / "agent"
    folder.mkdir(parents=True)
    for name in ("broken.md", "badmode.md", "reviewer.md"):
        shutil.copy(FIXTURES / name, folder / name)
    agents = load(worktree, user_dir)
    assert len(agents.warnings) == 2
    assert str(folder / "broken.md") in agents.warnings[1] and "YAML" in agents.warnings[1]
    assert str(folder / "badmode.md") in agents.warnings[0] and "mode" in agents.warnings[0]
    assert agents.get("reviewer").description
    with pytest.raises(NotFoundError):
        agents.get("broken")


def test_unknown_default_agent_falls_back_with_a_warning(worktree: Path, user_dir: Path) -> None:
    agents = load(worktree, user_dir, default_agent="explore")
    assert agents.default().name == "build"
    assert "explore" in agents.warnings[0]


@pytest.mark.parametrize(
    ("text", "meta", "body"),
    [
        ("plain", {}, "plain"),
        ("---\na: 1\n---\nbody\n", {"a": 1}, "body\n"),
        ("---\n---\nbody", {}, "body"),
        ("---\nperm:\n  bash:\n    '*': ask\n---\n", {"perm": {"bash": {"*": "ask"}}}, ""),
    ],
)
def test_front_matter(text: str, meta: dict[str, object], body: str) -> None:
    assert split_front_matter(text) == (meta, body)


@pytest.mark.parametrize("text", ["---\na: 1\nno end", "---\n- a\n- b\n---\n", "---\na: [\n---\n"])
def test_front_matter_errors(text: str) -> None:
    with pytest.raises(FrontMatterError):
        split_front_matter(text)


def test_child_rules(worktree: Path, user_dir: Path) -> None:
    agents = load(worktree, user_dir)
    config = Config.model_validate(
        {"permission": {"bash": {"rm *": "deny"}, "external_directory": {"/data/*": "allow"}}}
    )
    parent = effective_ruleset(agents.get("plan"), config)
    child = agents.get("general")
    child_rules = derive_child_rules(parent, child)
    effective = effective_ruleset(child, config, child_rules)
    assert evaluate("bash", "rm -rf x", effective).action == "deny"  # parent's deny carries over
    assert evaluate("edit", "src/a.py", effective).action == "deny"  # plan's edit deny too
    assert evaluate("external_directory", "/data/*", effective).action == "allow"
    assert evaluate("external_directory", "/etc/*", effective).action == "ask"
    assert disabled(["todowrite", "todoread", "task", "question", "read"], effective) == {
        "todowrite",
        "todoread",
        "task",
        "question",
    }


def test_child_rules_keep_what_the_subagent_itself_allows(worktree: Path, user_dir: Path) -> None:
    agents = load(
        worktree,
        user_dir,
        agent={"lead": {"mode": "subagent", "permission": {"task": "allow", "todowrite": "allow"}}},
    )
    child = agents.get("lead")
    effective = effective_ruleset(
        child, Config(), derive_child_rules(effective_ruleset(agents.get("build"), Config()), child)
    )
    assert disabled(["task", "todowrite", "todoread"], effective) == {"todoread"}
