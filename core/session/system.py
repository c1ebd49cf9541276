"""The system prompt: family or agent prompt, environment block, instruction files, skills."""

from __future__ import annotations

import datetime
import glob
import logging
import os
import platform
from pathlib import Path

from core.agent.info import AgentInfo
from core.prompts import load
from core.record import struct
from core.session.instruction_urls import InstructionURLs, is_url

log = logging.getLogger(__name__)

FAMILY_PROMPTS = {
    "anthropic": "system/anthropic.md",
    "openai": "system/openai.md",
    "openai-reasoning": "system/openai_reasoning.md",
    "gemini": "system/gemini.md",
}
# Rules every family gets, whatever its prompt's tone; appended so the whole stays one stable prefix.
GUIDANCE = "system/guidance.md"
INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
# What one MCP server's instructions may add to every request; a server is a config line away, and a
# chatty one must not crowd out the conversation. The cut is at a fixed place: the bytes stay stable.
MCP_INSTRUCTIONS_MAX = 8_000


def family_prompt(family: str) -> str:
    """The prompt written for a model family (``default`` for unknown families), then the guidance."""
    return f"{load(FAMILY_PROMPTS.get(family, 'system/default.md'))}\n\n{load(GUIDANCE)}"


def agent_base(agent: AgentInfo, family: str) -> str:
    """The stable first part of an agent's system prompt: its own prompt followed by the guidance
    (the family's prompt when it has none). Hidden agents (compaction, titles, summaries) run no
    tools on the user's files: their prompt is used alone."""
    if not agent.prompt:
        return family_prompt(family)
    if agent.hidden:
        return agent.prompt
    return f"{agent.prompt}\n\n{load(GUIDANCE)}"


def environment(model_ref: str, directory: Path, is_git: bool, today: datetime.date | None = None) -> str:
    """The environment block: model, working directory, git, platform, date."""
    day = (today or datetime.date.today()).strftime("%a %b %d %Y")
    return "\n".join(
        [
            f"You are powered by the model {model_ref}.",
            "Here is useful information about the environment you are running in:",
            "<env>",
            f"  Working directory: {directory}",
            f"  Is directory a git repo: {'yes' if is_git else 'no'}",
            f"  Platform: {platform.system().lower()}",
            f"  Today's date: {day}",
            "</env>",
        ]
    )


@struct
class _Cached:
    mtime_ns: int
    size: int
    text: str


class InstructionFiles:
    """Finds and reads instruction files; re-reads a file only when its mtime or size changed."""

    def __init__(self, config_dir: Path, urls: InstructionURLs | None = None) -> None:
        self._config_dir = config_dir
        self._cache: dict[Path, _Cached] = {}
        self._urls = urls or InstructionURLs()

    def paths(self, directory: Path, worktree: Path, configured: list[str]) -> list[Path]:
        """Instruction files in the order they are shown to the model."""
        found: list[Path] = []
        for name in INSTRUCTION_NAMES:
            hits = [d / name for d in _walk_up(directory, worktree) if (d / name).is_file()]
            if hits:
                found.extend(reversed(hits))  # outermost first, the nearest last (it wins)
                break
        for candidate in (self._config_dir / "AGENTS.md", Path.home() / ".claude" / "CLAUDE.md"):
            if candidate.is_file():
                found.append(candidate)
                break
        for entry in configured:
            if is_url(entry):
                continue  # fetched by render_all
            pattern = os.path.expanduser(entry)
            if not os.path.isabs(pattern):
                pattern = str(worktree / pattern)
            for match in sorted(glob.glob(pattern, recursive=True)):
                path = Path(match)
                if path.is_file() and path not in found:
                    found.append(path)
        return found

    def read(self, path: Path) -> str | None:
        """The file's text, from the cache while it is unchanged; None when unreadable."""
        try:
            st = path.stat()
        except OSError:
            self._cache.pop(path, None)
            return None
        cached = self._cache.get(path)
        if cached and cached.mtime_ns == st.st_mtime_ns and cached.size == st.st_size:
            return cached.text
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            log.warning("cannot read instructions %s: %s", path, exc)
            return None
        self._cache[path] = _Cached(st.st_mtime_ns, st.st_size, text)
        return text

    def render(self, directory: Path, worktree: Path, configured: list[str]) -> list[str]:
        """Each instruction file introduced by its path."""
        blocks = []
        for path in self.paths(directory, worktree, configured):
            text = self.read(path)
            if text and text.strip():
                blocks.append(f"Instructions from: {path}\n{text.strip()}")
        return blocks

    async def render_all(self, directory: Path, worktree: Path, configured: list[str]) -> list[str]:
        """``render``, then the configured URLs (fetched, or left out with a warning)."""
        blocks = self.render(directory, worktree, configured)
        urls = [entry for entry in configured if is_url(entry)]
        if urls:
            for url, text in await self._urls.fetch_all(urls):
                if text.strip():
                    blocks.append(f"Instructions from: {url}\n{text.strip()}")
        return blocks


def _walk_up(directory: Path, worktree: Path) -> list[Path]:
    directory, worktree = directory.resolve(), worktree.resolve()
    chain = [directory]
    current = directory
    while current != worktree and worktree in current.parents:
        current = current.parent
        chain.append(current)
    return chain


def mcp_blocks(servers: list[tuple[str, str]]) -> list[str]:
    """Each MCP server's instructions introduced by its name, cut at ``MCP_INSTRUCTIONS_MAX``."""
    blocks = []
    for name, text in servers:
        if len(text) > MCP_INSTRUCTIONS_MAX:
            cut = len(text) - MCP_INSTRUCTIONS_MAX
            text = f"{text[:MCP_INSTRUCTIONS_MAX]}\n[… {cut} more characters of these instructions left out]"
        blocks.append(f"Instructions from the MCP server {name}:\n{text}")
    return blocks


def build_system(
    *,
    base: str,
    user_system: str | None,
    env: str,
    instructions: list[str],
    skills: list[tuple[str, str]],
    mcp: list[tuple[str, str]] | None = None,
) -> list[str]:
    """Two system messages: the stable prompt, then the project context (both cache-marked): the
    environment, the project's instruction files, the MCP servers' instructions, the skills."""
    first = "\n\n".join(x for x in (base, user_system) if x)
    context = [env, *instructions, *mcp_blocks(mcp or [])]
    if skills:
        listing = "\n".join(f"- {name}: {description}" for name, description in skills)
        context.append(
            "Skills you can load with the skill tool when a task matches their description:\n" + listing
        )
    return [first, "\n\n".join(context)]
