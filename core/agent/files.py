"""Custom agents written as Markdown files: front matter for the settings, the body as the prompt."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import ValidationError

from core.agent.frontmatter import FrontMatterError, split_front_matter
from core.config.schema import AgentConfig
from core.record import record
from core.trust import is_trusted

log = logging.getLogger(__name__)


@record
class AgentFile:
    """One agent read from a file: its name, its settings and where it came from."""

    name: str
    config: AgentConfig
    path: Path


def agent_dirs(worktree: Path, user_config_dir: Path) -> list[Path]:
    """Where agent files live, lowest precedence first: the user's folder, then the project's."""
    if not is_trusted(worktree):  # a project agent sets its own permissions: see core.trust
        return [user_config_dir / "agent"]
    return [user_config_dir / "agent", worktree / ".agentls" / "agent"]


def read_agent_files(directories: list[Path], warnings: list[str]) -> list[AgentFile]:
    """Every readable agent file in ``directories`` (in order); bad files go to ``warnings``."""
    found: list[AgentFile] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            try:
                found.append(read_agent_file(path))
            except (OSError, UnicodeDecodeError, FrontMatterError, ValidationError) as exc:
                message = f"agent file {path} skipped: {_describe(exc)}"
                log.warning("%s", message)
                warnings.append(message)
    return found


def read_agent_file(path: Path) -> AgentFile:
    """Parse one agent file; the file name (without ``.md``) is the agent's name unless ``name`` says."""
    meta, body = split_front_matter(path.read_text(encoding="utf-8"))
    name = str(meta.pop("name", path.stem)).strip()
    if not name:
        raise FrontMatterError("the agent name is empty")
    prompt = body.strip()
    if prompt:
        meta["prompt"] = prompt
    return AgentFile(name=name, config=AgentConfig.model_validate(meta), path=path)


def _describe(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'front matter'}: {err['msg']}" for err in exc.errors()
        )
    return str(exc)
