"""A small stdio language server for Python-like files, written for the editor-query tests.

It knows ``def name`` lines: definition (the ``def`` of the word at the cursor, in any ``*.py`` of the
root), references (every whole-word use), hover (the ``def`` line), document and workspace symbols, and
publishes a warning for every line with ``TODO``. Enough to tell that an answer came from it. Its one
code action, "Mark the TODO done", works through a command that edits with ``workspace/applyEdit``
(the kind of action whose edit is not known before it runs).
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

server = LanguageServer("toy-ls", "1")
DEF = re.compile(r"^\s*def (\w+)")


def root() -> Path:
    return Path(server.workspace.root_path or ".")


def files() -> dict[str, list[str]]:
    out = {}
    for path in sorted(root().glob("*.py")):
        uri = from_fs_path(str(path)) or ""
        out[uri] = server.workspace.get_text_document(uri).source.splitlines()
    return out


def word_at(params: lsp.DefinitionParams | lsp.ReferenceParams | lsp.HoverParams) -> str:
    return server.workspace.get_text_document(params.text_document.uri).word_at_position(params.position)


def span(line: int, start: int, length: int) -> lsp.Range:
    return lsp.Range(lsp.Position(line, start), lsp.Position(line, start + length))


def definitions(word: str) -> list[tuple[str, int, int]]:
    found = []
    for uri, lines in files().items():
        for n, text in enumerate(lines):
            match = DEF.match(text)
            if match and match.group(1) == word:
                found.append((uri, n, match.start(1)))
    return found


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(params: lsp.DefinitionParams) -> list[lsp.Location]:
    word = word_at(params)
    return [lsp.Location(uri, span(n, col, len(word))) for uri, n, col in definitions(word)]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
    word = word_at(params)
    found = []
    for uri, lines in files().items():
        for n, text in enumerate(lines):
            for match in re.finditer(rf"\b{re.escape(word)}\b", text):
                found.append(lsp.Location(uri, span(n, match.start(), len(word))))
    return found


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(params: lsp.HoverParams) -> lsp.Hover | None:
    found = definitions(word_at(params))
    if not found:
        return None
    uri, n, _ = found[0]
    value = f"```python\n{files()[uri][n].strip()}\n```\n(toy-ls)"
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, value))


def symbols_in(uri: str, lines: list[str]) -> list[lsp.SymbolInformation]:
    out = []
    for n, text in enumerate(lines):
        match = DEF.match(text)
        if match:
            location = lsp.Location(uri, span(n, match.start(1), len(match.group(1))))
            out.append(
                lsp.SymbolInformation(
                    location=location, name=match.group(1), kind=lsp.SymbolKind.Function, container_name="toy"
                )
            )
    return out


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(params: lsp.DocumentSymbolParams) -> list[lsp.SymbolInformation]:
    uri = params.text_document.uri
    return symbols_in(uri, server.workspace.get_text_document(uri).source.splitlines())


@server.feature(lsp.WORKSPACE_SYMBOL)
def workspace_symbols(params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    found = [s for uri, lines in files().items() for s in symbols_in(uri, lines)]
    return [s for s in found if params.query in s.name]


def publish(uri: str) -> None:
    lines = server.workspace.get_text_document(uri).source.splitlines()
    diagnostics = [
        lsp.Diagnostic(
            span(n, text.index("TODO"), 4), "a TODO is left", lsp.DiagnosticSeverity.Warning, source="toy"
        )
        for n, text in enumerate(lines)
        if "TODO" in text
    ]
    server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, diagnostics))


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
    publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
    publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION)
def code_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    lines = server.workspace.get_text_document(params.text_document.uri).source.splitlines()
    first, last = params.range.start.line, params.range.end.line
    todo = [n for n in range(first, min(last + 1, len(lines))) if "TODO" in lines[n]]
    if not todo:
        return []
    command = lsp.Command("Mark the TODO done", "toy.done", arguments=[params.text_document.uri, todo[0]])
    return [lsp.CodeAction("Mark the TODO done", kind=lsp.CodeActionKind.QuickFix, command=command)]


@server.command("toy.done")
async def done(uri: str, line: int) -> None:
    text = server.workspace.get_text_document(uri).source.splitlines()[line]
    edit = lsp.TextEdit(span(line, text.index("TODO"), 4), "DONE")
    await server.workspace_apply_edit_async(
        lsp.ApplyWorkspaceEditParams(lsp.WorkspaceEdit(changes={uri: [edit]}))
    )


if __name__ == "__main__":
    server.start_io()
