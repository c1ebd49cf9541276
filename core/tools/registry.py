"""The set of tools an agent can be given, by id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.errors import NotFoundError
from core.tools.apply_patch import ApplyPatchTool
from core.tools.base import Tool
from core.tools.bash import BashTool
from core.tools.edit import EditTool
from core.tools.glob import GlobTool
from core.tools.grep import GrepTool
from core.tools.list import ListTool
from core.tools.read import ReadTool
from core.tools.shell_kill import ShellKillTool
from core.tools.shell_output import ShellOutputTool
from core.tools.write import WriteTool


class ToolRegistry:
    """Tool instances by id; built-in tools first, then whatever other modules register."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool[Any]] = {}

    def register(self, tool: Tool[Any], *, replace: bool = False) -> None:
        """Add a tool; a second tool with the same id is an error unless ``replace``."""
        if tool.id in self._tools and not replace:
            raise ValueError(f"a tool with id {tool.id!r} is already registered")
        self._tools[tool.id] = tool

    def get(self, tool_id: str) -> Tool[Any] | None:
        """The tool with this id, or None."""
        return self._tools.get(tool_id)

    def all(self) -> list[Tool[Any]]:
        """Every registered tool in registration order."""
        return list(self._tools.values())

    def ids(self) -> list[str]:
        """Every registered id in registration order."""
        return list(self._tools)

    def specs(self, ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The provider-facing specs of the given tools (all when ``ids`` is None)."""
        if ids is None:
            return [tool.spec() for tool in self._tools.values()]
        specs = []
        for tool_id in ids:
            tool = self._tools.get(tool_id)
            if tool is None:
                raise NotFoundError(f"no tool with id {tool_id!r}")
            specs.append(tool.spec())
        return specs


def builtin_registry() -> ToolRegistry:
    """A registry holding the core file and shell tools."""
    registry = ToolRegistry()
    builtin = (
        ReadTool(),
        WriteTool(),
        EditTool(),
        ApplyPatchTool(),
        BashTool(),
        ShellOutputTool(),
        ShellKillTool(),
    )
    for tool in (*builtin, GrepTool(), GlobTool(), ListTool()):
        registry.register(tool)
    return registry
