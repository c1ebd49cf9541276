"""The tool framework (context, base class, runner, registry) and the core file and shell tools."""

from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.registry import ToolRegistry, builtin_registry
from core.tools.runner import run_tool

__all__ = ["Tool", "ToolContext", "ToolParams", "ToolRegistry", "ToolResult", "builtin_registry", "run_tool"]
