"""Skills from the project and user folders, and the skill tool."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.skill import SkillTool, list_skills
from tests.unit.tools.conftest import Recorder

FIXTURES = Path(__file__).parents[2] / "fixtures" / "skills"


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "user-config"
    (path / "skills").mkdir(parents=True)
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def skills_dir(project: Path) -> Path:
    target = project / ".agentls" / "skills"
    shutil.copytree(FIXTURES, target)
    return target


def test_list_skills_reports_bad_ones(project: Path, user_dir: Path, skills_dir: Path) -> None:
    user_skill = user_dir / "skills" / "lint"
    user_skill.mkdir()
    (user_skill / "SKILL.md").write_text("---\nname: lint\ndescription: Run the linters\n---\nbody\n")
    warnings: list[str] = []
    skills = list_skills(project, warnings=warnings)
    assert [(s.name, s.description) for s in skills] == [
        ("lint", "Run the linters"),
        ("release", "Cut a release of this project (version bump, changelog, tag)"),
    ]
    assert skills[1].folder == (skills_dir / "release").resolve()
    assert len(warnings) == 2
    assert any(str(skills_dir / "broken" / "SKILL.md") in w for w in warnings)
    assert any("nameless" in w and "'name'" in w for w in warnings)


def test_project_skill_replaces_user_skill(project: Path, user_dir: Path, skills_dir: Path) -> None:
    other = user_dir / "skills" / "release-old"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: release\ndescription: old\n---\n")
    (release,) = [s for s in list_skills(project) if s.name == "release"]
    assert release.description.startswith("Cut a release")


async def test_skill_tool_returns_content_and_folder(
    ctx: ToolContext, recorder: Recorder, user_dir: Path, skills_dir: Path
) -> None:
    result = await run_tool(SkillTool(), {"name": "release"}, ctx)
    folder = (skills_dir / "release").resolve()
    assert "Run `scripts/bump.sh <version>`" in result.output
    assert str(folder) in result.output
    assert result.metadata == {"name": "release", "dir": str(folder)}
    assert [(a.permission, a.patterns) for a in recorder.asks] == [("skill", ["release"])]


async def test_unknown_skill_lists_the_available_ones(
    ctx: ToolContext, user_dir: Path, skills_dir: Path
) -> None:
    with pytest.raises(ToolError, match="Available skills: release"):
        await run_tool(SkillTool(), {"name": "deploy"}, ctx)
