"""The host-tool door: what a front end may build its own tools on (``open_agent(tools=…)``).

A host lends the agent tools that run through its client: ACP's ``TerminalBash`` runs ``bash`` in
the editor's terminal (``acp_server/terminal.py``), keeping the core bash tool's permission checks
and its way of reporting a command's outcome to the model. Front ends import tool code only from
here (an import contract in ``pyproject.toml`` says so), so what they depend on is this list:

- ``Tool``, ``ToolParams``, ``ToolResult``, ``ToolContext``, ``load_description``: any tool's base,
  its arguments' model, its result, the context of one call, and its description file;
- ``BashTool``, ``BashParams``, ``DEFAULT_TIMEOUT_MS``, ``command_result``, ``with_blocked``: the
  core bash tool to subclass (its ``run`` asks permission, then runs the command), and how a command's
  output, exit code and the sandbox's blocked calls become the model's result;
- ``number_line``, ``split_lines``: how the read tool numbers a file's lines, so that a file a client
  attaches reads as the read tool would show it;
- ``Terminal``, ``TerminalRun``, ``TerminalStop``, ``run_in_terminal``: bash in a terminal someone
  else owns (create, wait, kill), with the core bash tool's checks and confinement; the host runs
  an attached ACP front end's terminal through the same steps.
"""

from __future__ import annotations

from core.tools.base import Tool, ToolParams, ToolResult, load_description
from core.tools.bash import DEFAULT_TIMEOUT_MS, BashParams, BashTool, command_result, with_blocked
from core.tools.context import ToolContext
from core.tools.in_terminal import Terminal, TerminalRun, TerminalStop, run_in_terminal
from core.tools.read import number_line, split_lines

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "BashParams",
    "BashTool",
    "Terminal",
    "TerminalRun",
    "TerminalStop",
    "Tool",
    "ToolContext",
    "ToolParams",
    "ToolResult",
    "command_result",
    "load_description",
    "number_line",
    "run_in_terminal",
    "split_lines",
    "with_blocked",
]
