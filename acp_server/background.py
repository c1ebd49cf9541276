"""Background sub-agents and shells of a session as ACP tool calls: the roster an editor shows.

ACP has no roster of its own, so each background sub-agent and each background shell is a tool
call of the session that started it, kept up to date while it runs (its step, the tool it runs,
its tokens; a shell's last lines) and ended with its outcome: ``completed`` for a sub-agent that
finished or a shell that exited 0, ``failed`` for one that failed, was stopped or exited non-zero.
The first event about one announces it (``tool_call``), the later ones update it
(``tool_call_update``). The sub-agent's report still reaches the parent as a message of its own
(``acp_server.updates.subagent_report``).
"""

from __future__ import annotations

from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart

from acp_server.tool_calls import Status, text_content
from core.events import BackgroundAgent, BackgroundShell

# The tail of a shell's output shown in its call (the whole output is read with shell_output).
TAIL_CHARS = 2_000

_AGENT_STATUS: dict[str, Status] = {
    "running": "in_progress",
    "completed": "completed",
    "failed": "failed",
    "stopped": "failed",
}


def agent_call_id(agent: BackgroundAgent) -> str:
    return f"background-agent:{agent.sessionID}"


def shell_call_id(shell: BackgroundShell) -> str:
    return f"background-shell:{shell.id}"


def agent_update(
    agent: BackgroundAgent, announced: bool, summary: str | None = None
) -> ToolCallStart | ToolCallProgress:
    """The call showing ``agent`` now; ``summary``: the first line of its result once it ended."""
    title = f"Background sub-agent @{agent.agent}: {agent.description}"
    status = _AGENT_STATUS[agent.status]
    if agent.status == "running":
        doing = f", running {agent.tool}" if agent.tool else ""
        text = f"Step {agent.step}{doing} · {agent.tokens:,} tokens"
    elif agent.status == "completed":
        steps = f"{agent.step} step{'' if agent.step == 1 else 's'}"
        text = f"Done after {steps}: {summary}" if summary else f"Done after {steps}."
    elif agent.status == "stopped":
        text = "Stopped."
    else:
        text = f"Failed: {agent.error or summary or 'no reason given'}"
    raw: dict[str, Any] = {"sessionID": agent.sessionID, "status": agent.status, "step": agent.step}
    return _update(agent_call_id(agent), title, "think", status, text, raw, announced)


def shell_update(shell: BackgroundShell, announced: bool) -> ToolCallStart | ToolCallProgress:
    """The call showing a background shell now: its command, then its last lines and exit."""
    status: Status
    if shell.status == "running":
        status, ending = "in_progress", "Running."
    elif shell.status == "exited" and shell.exitCode == 0:
        status, ending = "completed", "Exited with 0."
    elif shell.status == "exited":
        status, ending = "failed", f"Exited with {shell.exitCode}."
    else:
        status, ending = "failed", "Stopped."
    tail = shell.tail[-TAIL_CHARS:].rstrip()
    text = f"```\n{tail}\n```\n{ending}" if tail else ending
    raw: dict[str, Any] = {"shellID": shell.id, "status": shell.status, "exitCode": shell.exitCode}
    title = f"Background shell: {shell.command}"
    return _update(shell_call_id(shell), title, "execute", status, text, raw, announced)


def _update(
    call_id: str, title: str, kind: Any, status: Status, text: str, raw: dict[str, Any], announced: bool
) -> ToolCallStart | ToolCallProgress:
    content = [text_content(text)]
    if not announced:
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=call_id,
            title=title,
            kind=kind,
            status=status,
            content=content,
            raw_output=raw,
        )
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=call_id,
        title=title,
        kind=kind,
        status=status,
        content=content,
        raw_output=raw,
    )
