"""What a command is: a name, a description, and a built-in action, a prompt template or an MCP
server's prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from core.errors import InvalidInputError
from core.record import record
from core.tools.mcp_listing import McpPrompt

Kind = Literal["builtin", "user", "mcp"]


@record
class CommandInfo:
    """One command a user can run as ``/name args``."""

    name: str
    description: str
    kind: Kind
    template: str = ""  # user commands: the prompt template
    agent: str | None = None  # the agent that answers (user commands)
    model: str | None = None  # "provider/model" that answers (user commands)
    subtask: bool = False  # run by a subagent in a child session
    source: str = "built-in"  # where it was defined: "built-in", "config", or a file path
    hint: str = ""  # what the arguments are, for a client's menu ("<message id>", "[focus]")
    prompt: McpPrompt | None = None  # MCP prompts: the server's prompt it runs


class CommandFileError(InvalidInputError):
    """A command file that cannot be read; the message names the file and the line."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
