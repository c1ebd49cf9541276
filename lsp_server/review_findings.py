"""The agent code review's findings as plain LSP diagnostics, with "Fix with agent" and "Dismiss".

``/review`` (``agent/session/command``, or ``agentls.codeReview`` for stock clients) answers
findings; they are published with ``textDocument/publishDiagnostics`` (source ``agentls review``,
high -> Error, medium -> Warning, low -> Information, the reason as the message), so VS Code's
Problems list, Neovim's ``vim.diagnostic`` and any stock client show them. When a document changes,
a diff of its text before and after moves each finding with its lines, and clears it when any of
them changed (the problem was fixed, by the user or by the agent). A new review replaces the
findings of the one before; ``agentls.dismissFinding`` drops one. ``agentls.fixFinding`` asks the
agent to fix one, in the session that reviewed: its edit goes the way every agent edit goes (a
dialog or a review hunk, ``/undo``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from difflib import Match, SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pydantic import Field
from pygls.exceptions import JsonRpcInvalidParams

from core.message.findings import Finding
from lsp_server import code_actions
from lsp_server import protocol as p
from lsp_server.errors import jsonrpc_errors
from lsp_server.plain_messages import answer_text

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

SOURCE = code_actions.REVIEW_SOURCE
FIX, DISMISS, REVIEW = "agentls.fixFinding", "agentls.dismissFinding", "agentls.codeReview"
COMMANDS = (FIX, DISMISS, REVIEW)
SEVERITY = {
    "high": lsp.DiagnosticSeverity.Error,
    "medium": lsp.DiagnosticSeverity.Warning,
    "low": lsp.DiagnosticSeverity.Information,
}


@dataclass
class _Held:
    finding: Finding
    session_id: str
    line: int  # 0-based, where its lines are now
    anchor: list[str]  # the text of its lines when published (their count places the range)


class FindingRef(p.Params):
    """``agentls.fixFinding`` / ``agentls.dismissFinding``'s argument."""

    findingID: str = Field(min_length=1)


class ReviewFindings:
    """The findings of the last review, by document URI, and their diagnostics."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self._by_uri: dict[str, list[_Held]] = {}
        self._lines: dict[str, list[str]] = {}  # each file's lines as the findings were last placed

    async def publish(self, session_id: str, findings: tuple[Finding, ...]) -> None:
        """Show ``findings`` in place of the previous review's."""
        before = set(self._by_uri)
        self._by_uri, self._lines = {}, {}
        for finding in findings:
            uri = Path(finding.path).as_uri()
            lines = self._lines[uri] = (await self._text(Path(finding.path))).splitlines()
            line = min(finding.line, max(len(lines), 1)) - 1
            anchor = lines[line : line + finding.endLine - finding.line + 1]
            self._by_uri.setdefault(uri, []).append(_Held(finding, session_id, line, anchor))
        for uri in sorted(before | set(self._by_uri)):
            self._send(uri)

    def changed(self, uri: str) -> None:
        """After a change of ``uri``: findings follow their lines, or go when those lines changed."""
        held = self._by_uri.get(uri)
        if not held:
            return
        before = self._lines.get(uri, [])
        after = self._lines[uri] = self.server.workspace.get_text_document(uri).source.splitlines()
        blocks = SequenceMatcher(None, before, after, autojunk=False).get_matching_blocks()
        kept = []
        for item in held:
            at = _moved(blocks, item.line, max(len(item.anchor), 1))
            if at is not None:
                item.line = at
                kept.append(item)
        self._by_uri[uri] = kept
        self._send(uri)

    def dismiss(self, finding_id: str) -> _Held:
        """Drop one finding (its diagnostic goes); ``JsonRpcInvalidParams`` when it is not shown."""
        for uri, held in self._by_uri.items():
            for item in held:
                if item.finding.id == finding_id:
                    held.remove(item)
                    self._send(uri)
                    return item
        raise JsonRpcInvalidParams(message=f"invalid params: no review finding {finding_id!r} is shown")

    def get(self, finding_id: str) -> _Held:
        for held in self._by_uri.values():
            for item in held:
                if item.finding.id == finding_id:
                    return item
        raise JsonRpcInvalidParams(message=f"invalid params: no review finding {finding_id!r} is shown")

    async def actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """ "Fix with agent" and "Dismiss" on each finding the range touches."""
        first = params.range.start.line
        last = max(params.range.end.line, first)
        out = []
        for item in self._by_uri.get(params.text_document.uri, []):
            end = item.line + max(len(item.anchor), 1) - 1
            if end < first or item.line > last:
                continue
            diagnostic = self.diagnostic(item)
            argument = {"findingID": item.finding.id}
            for title, command, kind in (
                (f"Fix with agent: {_short(item.finding.reason)}", FIX, lsp.CodeActionKind.QuickFix),
                ("Dismiss review finding", DISMISS, lsp.CodeActionKind.Empty),
            ):
                out.append(
                    lsp.CodeAction(
                        title=title,
                        kind=kind,
                        diagnostics=[diagnostic],
                        command=lsp.Command(title=title, command=command, arguments=[argument]),
                    )
                )
        return out

    def _send(self, uri: str) -> None:
        diagnostics = [self.diagnostic(item) for item in self._by_uri.get(uri, [])]
        if not diagnostics:
            self._by_uri.pop(uri, None)
        self.server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def diagnostic(self, item: _Held) -> lsp.Diagnostic:
        last = item.line + max(len(item.anchor), 1) - 1
        width = len(item.anchor[-1]) if item.anchor else 0
        return lsp.Diagnostic(
            range=lsp.Range(start=lsp.Position(item.line, 0), end=lsp.Position(last, width)),
            message=item.finding.reason,
            severity=SEVERITY[item.finding.severity],
            source=SOURCE,
            code=item.finding.id,
            data={"sessionID": item.session_id, "findingID": item.finding.id},
        )

    async def _text(self, path: Path) -> str:
        workspace = self.server.lsp_workspace
        if workspace is None:
            return ""
        try:
            return await workspace.read_text(path)
        except (OSError, UnicodeDecodeError):  # a finding in a file that is gone: shown at line 1
            return ""


def _moved(blocks: list[Match], line: int, count: int) -> int | None:
    """Where lines ``line``..``line+count-1`` of the old text are in the new one, when they are all
    unchanged (inside one block the two texts share); None when any of them changed."""
    for block in blocks:
        if block.a <= line and line + count <= block.a + block.size:
            return block.b + line - block.a
    return None


def _short(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "the finding"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def register(server: AgentServer, findings: ReviewFindings) -> None:
    """Add the findings' commands (the caller hooks ``publish``, ``changed`` and ``actions`` in)."""

    @server.command(FIX)
    @jsonrpc_errors
    async def fix(*args: Any) -> Any:
        item = findings.get(p.parse(FindingRef, args[0] if args else None).findingID)
        path = Path(item.finding.path)
        app = await server.app()
        workspace = server.lsp_workspace
        assert workspace is not None  # the app runs, so initialized created it
        text = await workspace.read_text(path)
        rng = findings.diagnostic(item).range
        where = {
            "start": {"line": rng.start.line, "character": 0},
            "end": {"line": rng.end.line, "character": rng.end.character},
        }
        problem = {"range": where, "message": item.finding.reason, "source": SOURCE}
        target = code_actions.Target.model_validate(
            {"uri": path.as_uri(), "range": where, "diagnostic": problem}
        )
        parts = code_actions.build_prompt(code_actions.FIX, target, path, text, workspace.root)
        if item.session_id == server.plain.session_id:
            return await server.plain.start(app, parts, f"Fix: {path.name}", None)
        server.spawn(app.prompt(item.session_id, parts, mode="queue"))
        return {"sessionID": item.session_id, "async": True}

    @server.command(DISMISS)
    @jsonrpc_errors
    async def dismiss(*args: Any) -> Any:
        item = findings.dismiss(p.parse(FindingRef, args[0] if args else None).findingID)
        return {"findingID": item.finding.id}

    @server.command(REVIEW)
    @jsonrpc_errors
    async def review(*args: Any) -> Any:
        target = args[0] if args and isinstance(args[0], str) else ""
        if args and not isinstance(args[0], str):
            raise JsonRpcInvalidParams(message="invalid params: arguments.0: the review target (a string)")
        app = await server.app()
        session_id = await server.plain.session(app)
        result = await app.run_command(session_id, "review", target)
        shown = list(result.findings or ())
        await findings.publish(session_id, tuple(shown))
        answer = result.text if result.message is None else answer_text(result.message)
        server.show_message(f"agentls review: {len(shown)} finding(s)\n{answer}")
        return {"sessionID": session_id, "findings": [f.model_dump() for f in shown], "text": answer}
