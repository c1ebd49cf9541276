"""The host's ``bash``: in the terminal of the front end whose call started the turn, when it lent
one (an ACP client's ``terminal/*``, through ``core/remote/lend.py``), else as the core bash tool
runs it. Permission checks and confinement happen here either way."""

from __future__ import annotations

from pathlib import Path

from core.host_tools import (
    BashParams,
    BashTool,
    TerminalRun,
    ToolContext,
    ToolResult,
    load_description,
    run_in_terminal,
)
from host.lenders import Lender, Lenders


class RoutedBash(BashTool):
    """The ``bash`` tool of a host's agent."""

    def __init__(self, lenders: Lenders) -> None:
        super().__init__()
        self._lenders = lenders

    @property
    def description(self) -> str:
        return load_description(BashTool.__module__)  # the core bash tool's own text

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        lender = self._lenders.terminal()
        if lender is None:
            return await super().execute(params, ctx)
        return await run_in_terminal(self, LentTerminal(lender), params, ctx, super().execute)


class LentTerminal:
    """``core.host_tools.Terminal`` of a front end, called over its connection."""

    def __init__(self, lender: Lender) -> None:
        self._lender = lender

    async def create(self, argv: list[str], env: dict[str, str], cwd: Path, call_id: str) -> str:
        made: str = await self._lender.call("terminal.create", argv=argv, env=env, cwd=cwd, call_id=call_id)
        return made

    async def wait(self, terminal_id: str, timeout_s: float) -> TerminalRun:
        run: TerminalRun = await self._lender.call(
            "terminal.wait", terminal_id=terminal_id, timeout_s=timeout_s
        )
        return run

    async def kill(self, terminal_id: str) -> TerminalRun:
        run: TerminalRun = await self._lender.call("terminal.kill", terminal_id=terminal_id)
        return run
