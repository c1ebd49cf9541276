"""Code actions that hand a diagnostic or a selection to the agent, for any LSP client.

"Ask agent to fix …" on each diagnostic under the cursor and "Explain with agent" on a selection;
both run a command whose prompt carries the file, the range, the code and the diagnostic.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcInvalidParams

from core.prompts import load
from core.session.prompt_input import FileInput, Range, TextInput
from lsp_server import protocol as p
from lsp_server.errors import jsonrpc_errors
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

FIX, EXPLAIN = "agentls.fix", "agentls.explain"
COMMANDS = (FIX, EXPLAIN)
_CONVERTER = get_converter()
KINDS = [lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Empty]


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def code_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The agent's actions for a range and the diagnostics the client sent with it."""
    uri, only = params.text_document.uri, params.context.only
    actions: list[lsp.CodeAction] = []
    if _wanted(lsp.CodeActionKind.QuickFix, only):
        for diagnostic in params.context.diagnostics:
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
    selected = params.range.start != params.range.end
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


def _wire(value: Any) -> Any:
    return _CONVERTER.unstructure(value)


def _excerpt(text: str, rng: Range) -> str:
    lines = text.splitlines()
    end = rng.end.line if rng.end.character > 0 or rng.end.line == rng.start.line else rng.end.line - 1
    return "\n".join(lines[rng.start.line : max(end, rng.start.line) + 1])


def build_prompt(kind: str, target: p.CodeTarget, path: Path, text: str, root: Path) -> list[Any]:
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
        "diagnostic": target.diagnostic.message if target.diagnostic else "",
    }
    instruction = load("lsp/fix.md" if kind == FIX else "lsp/explain.md").format(**fields)
    return [TextInput(type="text", text=instruction), FileInput(type="file", path=str(path), range=rng)]


def register(server: AgentServer) -> None:
    """Add the code action provider and its two commands."""
    server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=KINDS))(
        code_actions
    )

    def command(kind: str) -> None:
        @server.command(kind)
        @jsonrpc_errors
        async def run(*args: Any) -> Any:
            target = p.parse(p.CodeTarget, args[0] if args else None)
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
            return await server.plain.run(app, parts, label)

    for kind in COMMANDS:
        command(kind)
