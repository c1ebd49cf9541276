"""Code actions that hand a diagnostic or a selection to the agent, for any LSP client.

"Ask agent to fix: <message>" on each diagnostic the client sent, "Ask agent to fix lines N-M" and
"Explain with agent" on a non-empty selection, and nothing on a bare cursor with no diagnostic (a
lightbulb on every line would be noise). Stock Neovim and eglot send only this server's diagnostics,
and agentls publishes only the hints of pending agent changes (skipped here): their users select
the lines. The command's prompt carries the file, the
range, the code and every diagnostic the client put in the request.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pydantic import Field
from pygls.exceptions import JsonRpcInvalidParams

from core.message.prompt_input import FileInput, Range, TextInput
from core.prompts import load
from lsp_server import protocol as p
from lsp_server.diagnostics import format_diagnostic
from lsp_server.errors import jsonrpc_errors
from lsp_server.plain_marks import SOURCE as HUNK_SOURCE
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

FIX, EXPLAIN = "agentls.fix", "agentls.explain"
REVIEW_SOURCE = "agentls review"  # the code review's diagnostics (lsp_server/review_findings.py)
COMMANDS = (FIX, EXPLAIN)
KINDS = [lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Empty]
MoreActions = Callable[[lsp.CodeActionParams], Awaitable[list[lsp.CodeAction]]]


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


class Target(p.CodeTarget):
    """A command's argument: the ``CodeTarget`` plus all diagnostics and the async switch."""

    diagnostics: list[p.Diagnostic] = Field(default_factory=list)
    async_: bool | None = Field(default=None, alias="async")


def _lines(rng: lsp.Range) -> str:
    start, end = rng.start.line + 1, rng.end.line + (1 if rng.end.character > 0 else 0)
    return f"line {start}" if end <= start else f"lines {start}-{end}"


def code_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The agent's actions for a range and the diagnostics the client sent with it."""
    uri, only = params.text_document.uri, params.context.only
    actions: list[lsp.CodeAction] = []
    selected = params.range.start != params.range.end
    # This server's own hints mark the agent's pending changes (plain_marks): Keep / Undo act on
    # those, not "Ask agent to fix".
    diagnostics = [d for d in params.context.diagnostics if d.source != HUNK_SOURCE]
    if _wanted(lsp.CodeActionKind.QuickFix, only):
        for diagnostic in diagnostics:
            if diagnostic.source == REVIEW_SOURCE:
                continue  # lsp_server/review_findings.py offers "Fix with agent" on its own findings
            title = f"Ask agent to fix: {_short(diagnostic.message)}"
            target = {"uri": uri, "range": _wire(diagnostic.range), "diagnostic": _wire(diagnostic)}
            actions.append(
                lsp.CodeAction(
                    title=title,
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    command=lsp.Command(title=title, command=FIX, arguments=[target]),
                )
            )
        if selected:
            # The selection with every diagnostic the client sent for it (all of them in one turn).
            title = f"Ask agent to fix {_lines(params.range)}"
            everything = {
                "uri": uri,
                "range": _wire(params.range),
                "diagnostics": [_wire(d) for d in diagnostics],
            }
            actions.append(
                lsp.CodeAction(
                    title=title,
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=diagnostics or None,
                    command=lsp.Command(title=title, command=FIX, arguments=[everything]),
                )
            )
    if selected and _wanted(lsp.CodeActionKind.Empty, only):
        target = {"uri": uri, "range": _wire(params.range)}
        actions.append(
            lsp.CodeAction(
                title="Explain with agent",
                kind=lsp.CodeActionKind.Empty,
                command=lsp.Command(title="Explain with agent", command=EXPLAIN, arguments=[target]),
            )
        )
    return actions


def _short(message: str, limit: int = 60) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "the problem"
    return line if len(line) <= limit else line[: limit - 1] + "…"


@functools.cache
def _converter() -> Any:
    """lsprotocol's converter, made at the first code action (not at the server's start)."""
    return get_converter()


def _wire(value: Any) -> Any:
    return _converter().unstructure(value)


def _excerpt(text: str, rng: Range) -> str:
    lines = text.splitlines()
    end = rng.end.line if rng.end.character > 0 or rng.end.line == rng.start.line else rng.end.line - 1
    return "\n".join(lines[rng.start.line : max(end, rng.start.line) + 1])


def _problems(target: Target) -> str:
    found = [target.diagnostic] if target.diagnostic else []
    found += [d for d in target.diagnostics if d not in found]
    if not found:
        # Not "no problem here": a client may hold diagnostics it did not send (stock clients send
        # only this server's), so say only what is known.
        return "No diagnostic came with this request: find what is wrong with this code."
    lines = [f"- {format_diagnostic(d)}" for d in found]
    return "The editor reports:\n" + "\n".join(lines)


def build_prompt(kind: str, target: Target, path: Path, text: str, root: Path) -> list[Any]:
    """The prompt parts of a fix or explain command: instruction with the code, plus the file range."""
    try:
        shown = str(path.relative_to(root))
    except ValueError:
        shown = str(path)
    rng = target.range
    fields = {
        "file": shown,
        "line": rng.start.line + 1,
        "start": rng.start.line + 1,
        "end": max(rng.end.line, rng.start.line) + 1,
        "code": _excerpt(text, rng),
        "problems": _problems(target),
    }
    instruction = load("lsp/fix.md" if kind == FIX else "lsp/explain.md").format(**fields)
    return [TextInput(type="text", text=instruction), FileInput(type="file", path=str(path), range=rng)]


def register(server: AgentServer, more: MoreActions | None = None) -> None:
    """Add the code action provider and its two commands; ``more``: other actions for the same
    request (the review's Keep / Undo on a pending hunk, ``lsp_server/plain_review.py``)."""

    async def actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        found = code_actions(params)
        return [*found, *await more(params)] if more is not None else found

    server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=KINDS))(actions)

    def command(kind: str) -> None:
        @server.command(kind)
        @jsonrpc_errors
        async def run(*args: Any) -> Any:
            target = p.parse(Target, args[0] if args else None)
            path = path_of(target.uri)
            if path is None:
                raise JsonRpcInvalidParams(message="invalid params: arguments.0.uri: not a file:// URI")
            app = await server.app()
            workspace = server.lsp_workspace
            assert workspace is not None  # the app runs, so initialized created it
            try:
                text = await workspace.read_text(path)
            except FileNotFoundError as exc:
                raise JsonRpcInvalidParams(
                    message=f"invalid params: arguments.0.uri: no file {path}"
                ) from exc
            parts = build_prompt(kind, target, path, text, workspace.root)
            label = ("Fix: " if kind == FIX else "Explain: ") + path.name
            wait = None if target.async_ is None else not target.async_
            return await server.plain.start(app, parts, label, wait)

    for kind in COMMANDS:
        command(kind)
