"""Skills: folders with a ``SKILL.md`` (front matter name + description) the agent loads on demand."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import Field

from core.agent.frontmatter import FrontMatterError, split_front_matter
from core.config.paths import config_dir
from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.record import record
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.trust import is_trusted

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"


@record
class Skill:
    """One skill: its name, when to use it, and where its files are."""

    name: str
    description: str
    path: Path  # the SKILL.md file

    @property
    def folder(self) -> Path:
        """The skill's folder (scripts and references beside SKILL.md live here)."""
        return self.path.parent


def skill_dirs(worktree: Path, user_config_dir: Path | None = None) -> list[Path]:
    """Where skills live, lowest precedence first: the user's folder, then the project's."""
    user = (user_config_dir or config_dir()) / "skills"
    return [user, worktree / ".agentls" / "skills"] if is_trusted(worktree) else [user]  # core.trust


def list_skills(
    worktree: Path, user_config_dir: Path | None = None, warnings: list[str] | None = None
) -> list[Skill]:
    """Every valid skill, sorted by name; a project skill replaces a user skill of the same name."""
    found: dict[str, Skill] = {}
    for directory in skill_dirs(worktree, user_config_dir):
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob(f"*/{SKILL_FILE}")):
            try:
                skill = read_skill(path)
            except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
                message = f"skill {path} skipped: {exc}"
                log.warning("%s", message)
                if warnings is not None:
                    warnings.append(message)
                continue
            found[skill.name] = skill
    return [found[name] for name in sorted(found)]


def read_skill(path: Path) -> Skill:
    """Read a SKILL.md; its front matter must give a name and a description."""
    meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not name.strip():
        raise FrontMatterError("the front matter needs a 'name'")
    if not isinstance(description, str) or not description.strip():
        raise FrontMatterError("the front matter needs a 'description'")
    return Skill(name=name.strip(), description=description.strip(), path=path.resolve())


class SkillParams(ToolParams):
    name: str = Field(description="The name of the skill to load, as listed in the available skills")


class SkillTool(Tool[SkillParams]):
    id = "skill"
    Params = SkillParams
    read_only = True

    async def execute(self, params: SkillParams, ctx: ToolContext) -> ToolResult:
        skills = list_skills(ctx.worktree)
        skill = next((s for s in skills if s.name == params.name), None)
        if skill is None:
            names = ", ".join(s.name for s in skills) or "none"
            raise ToolError(f'There is no skill named "{params.name}". Available skills: {names}.')
        await ctx.ask(PermissionAsk("skill", [skill.name], [skill.name], title=f"Load skill {skill.name}"))
        try:
            content = skill.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolError(f'The skill "{skill.name}" could not be read: {exc}') from exc
        output = (
            f'<skill name="{skill.name}" folder="{skill.folder}">\n{content.strip()}\n</skill>\n'
            f"Paths in this skill are relative to {skill.folder}."
        )
        return ToolResult(
            title=f"Loaded skill {skill.name}",
            output=output,
            metadata={"name": skill.name, "dir": str(skill.folder)},
        )
