"""The editor's language servers, asked through the connected plugin client (``core.editor``).

A client that can answer lists the queries in ``capabilities.experimental.agent.editorQueries``;
the server then asks each one with an ``agent/editorQuery`` request (docs/protocol.md, "Editor
queries"). Every request has a time-out (``editorTimeout``, 10 s unless the client options say
otherwise); a late, failed or unreadable answer becomes a ``ToolError`` for the model, so a turn
never waits on the editor longer than that.

The refactoring queries (``rename``, ``codeActions`` with its follow-ups ``codeAction`` and
``runCommand``, ``format``) answer with edits, read by ``lsp_server/editor_edits.py``.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from core.editor import (
    EDITOR_QUERIES,
    EditorActionEdit,
    EditorCodeAction,
    EditorDiagnostic,
    EditorFileEdit,
    EditorLocation,
    EditorQuery,
    EditorSymbol,
    EditorTextEdit,
)
from core.errors import ToolError
from core.workspace import Workspace
from lsp_server import editor_edits
from lsp_server.clients import Connection
from lsp_server.protocol import describe
from lsp_server.workspace import path_of, uri_of

log = logging.getLogger(__name__)

EDITOR_QUERY = "agent/editorQuery"
MAX_ANSWER_ITEMS = 500  # more than any tool shows; an answer beyond it is cut before it is parsed


def announced_queries(agent: dict[str, Any] | None) -> frozenset[EditorQuery]:
    """The queries of ``experimental.agent.editorQueries`` that the server knows; others are ignored."""
    listed = agent.get("editorQueries") if agent else None
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(q for q in EDITOR_QUERIES if q in listed)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


A = TypeVar("A", bound=_Answer)


class _Position(_Answer):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class _Range(_Answer):
    start: _Position
    end: _Position


class _Location(_Answer):
    uri: str
    range: _Range


class _Symbol(_Answer):
    name: str
    kind: str = "symbol"
    containerName: str = ""
    location: _Location


class _Diagnostic(_Answer):
    range: _Range
    severity: Literal["error", "warning", "information", "hint"] = "error"
    message: str
    source: str = ""


class _Hover(_Answer):
    contents: str = ""


class EditorClient:
    """``core.editor.EditorIntelligence`` answered by the connected client."""

    def __init__(self, server: LanguageServer, connection: Connection, workspace: Workspace) -> None:
        self._server = server
        self._connection = connection
        self._workspace = workspace

    def supported(self) -> frozenset[EditorQuery]:
        return self._connection.editor_queries if self._connection.connected else frozenset()

    async def definition(self, at: EditorLocation) -> list[EditorLocation]:
        answer = await self._ask("definition", {**await self._at(at)})
        return [self._location(loc) for loc in _items(answer, _Location, "definition")]

    async def references(self, at: EditorLocation) -> list[EditorLocation]:
        answer = await self._ask("references", {**await self._at(at)})
        return [self._location(loc) for loc in _items(answer, _Location, "references")]

    async def hover(self, at: EditorLocation) -> str:
        answer = await self._ask("hover", {**await self._at(at)})
        if answer is None:
            return ""
        return _read(_Hover, answer, "hover").contents

    async def document_symbols(self, path: Path) -> list[EditorSymbol]:
        answer = await self._ask("documentSymbols", {"uri": uri_of(path)})
        return [self._symbol(s) for s in _items(answer, _Symbol, "documentSymbols")]

    async def workspace_symbols(self, query: str) -> list[EditorSymbol]:
        answer = await self._ask("workspaceSymbols", {"text": query})
        return [self._symbol(s) for s in _items(answer, _Symbol, "workspaceSymbols")]

    async def diagnostics(self, path: Path) -> list[EditorDiagnostic]:
        answer = await self._ask("diagnostics", {"uri": uri_of(path)})
        return [
            EditorDiagnostic(
                location=EditorLocation(path, d.range.start.line, d.range.start.character),
                severity=d.severity,
                message=d.message,
                source=d.source,
            )
            for d in _items(answer, _Diagnostic, "diagnostics")
        ]

    async def rename(self, at: EditorLocation, new_name: str) -> list[EditorFileEdit]:
        answer = await self._ask("rename", {**await self._at(at), "newName": new_name})
        if answer is None:
            return []
        edit = editor_edits.read_answer(editor_edits.WireEdit, answer, "rename")
        return await editor_edits.workspace_edit(edit, self._chars(), "rename")

    async def code_actions(
        self, path: Path, lines: tuple[int, int], only: tuple[str, ...] = ()
    ) -> list[EditorCodeAction]:
        params = {"uri": uri_of(path), "range": await self._lines(path, lines), "only": list(only)}
        return editor_edits.actions(await self._ask("codeActions", params))

    async def code_action(
        self, path: Path, lines: tuple[int, int], title: str, only: tuple[str, ...] = ()
    ) -> EditorActionEdit | None:
        params = {
            "uri": uri_of(path),
            "range": await self._lines(path, lines),
            "title": title,
            "only": list(only),
        }
        answer = await self._ask("codeActions", params, wire="codeAction")
        return await editor_edits.resolved(answer, self._chars())

    async def run_command(self, token: str) -> list[Path]:
        return editor_edits.ran(await self._ask("codeActions", {"token": token}, wire="runCommand"))

    async def format(self, path: Path, lines: tuple[int, int] | None) -> list[EditorTextEdit]:
        params: dict[str, Any] = {"uri": uri_of(path)}
        if lines is not None:
            params["range"] = await self._lines(path, lines)
        answer = await self._ask("format", params)
        if answer is None:
            return []
        if not isinstance(answer, list):
            raise ToolError("the editor's answer to the format query could not be read: expected a list")
        edits = [editor_edits.read_answer(editor_edits.WireTextEdit, e, "format") for e in answer]
        return list((await editor_edits.text_edits(uri_of(path), edits, self._chars(), "format")).edits)

    # --- the wire ----------------------------------------------------------------------------

    async def _lines(self, path: Path, lines: tuple[int, int]) -> dict[str, Any]:
        """The LSP range from the start of line ``lines[0]`` to the end of line ``lines[1]``."""
        try:
            text = (await self._workspace.read_text(path)).split("\n")
        except (OSError, UnicodeDecodeError):
            text = []
        last = text[lines[1]].rstrip("\r") if lines[1] < len(text) else ""
        end = {"line": lines[1], "character": _units(last, self._encoding())}
        return {"start": {"line": lines[0], "character": 0}, "end": end}

    def _chars(self) -> editor_edits.Chars:
        """Client columns as characters, each file's text read once (the text the edit applies to)."""
        texts: dict[Path, list[str]] = {}
        encoding = self._encoding()

        async def chars(path: Path, line: int, units: int) -> int:
            if path not in texts:
                try:
                    texts[path] = (await self._workspace.read_text(path)).split("\n")
                except (OSError, UnicodeDecodeError):
                    texts[path] = []
            rows = texts[path]
            return _characters(rows[line] if line < len(rows) else "", units, encoding)

        return chars

    async def _at(self, at: EditorLocation) -> dict[str, Any]:
        """``uri`` and ``position`` of a location, the column counted as the client counts it."""
        try:
            line = (await self._workspace.read_text(at.path)).split("\n")[at.line]
        except (OSError, UnicodeDecodeError, IndexError):
            line = ""
        character = _units(line[: at.column], self._encoding())
        return {"uri": uri_of(at.path), "position": {"line": at.line, "character": character}}

    def _encoding(self) -> str:
        encoding = self._server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    async def _ask(self, needs: EditorQuery, params: dict[str, Any], wire: str = "") -> Any:
        """Ask the client ``wire`` (by default the query ``needs`` itself, which it must announce)."""
        if needs not in self.supported():
            raise ToolError(f"the connected editor does not answer {needs} queries.")
        query = wire or needs
        timeout = self._connection.editor_timeout
        future: Future[Any] = self._server.protocol.send_request(EDITOR_QUERY, {"query": query, **params})
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError as exc:
            future.cancel()
            log.info("%s %s: no answer within %.1f s", EDITOR_QUERY, query, timeout)
            raise ToolError(
                f"the editor did not answer the {query} query within {timeout:g} s "
                "(its language server may still be starting). Try again later, or use grep and read."
            ) from exc
        except JsonRpcException as exc:
            log.info("%s %s answered with an error: %s", EDITOR_QUERY, query, exc.message)
            raise ToolError(f"the editor could not answer the {query} query: {exc.message}") from exc

    def _location(self, loc: _Location) -> EditorLocation:
        path = path_of(loc.uri)
        if path is None:
            raise ToolError(f"the editor answered with a location that is not a file: {loc.uri}")
        return EditorLocation(path, loc.range.start.line, loc.range.start.character)

    def _symbol(self, sym: _Symbol) -> EditorSymbol:
        return EditorSymbol(
            name=sym.name, kind=sym.kind, location=self._location(sym.location), container=sym.containerName
        )


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def _characters(line: str, units: int, encoding: str) -> int:
    """How many characters of ``line`` make ``units`` code units of ``encoding`` (capped at its length)."""
    if encoding == "utf-32":
        return min(units, len(line))
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        count += len(ch.encode("utf-8")) if encoding == "utf-8" else (2 if ord(ch) > 0xFFFF else 1)
    return len(line)


def _read(model: type[A], value: Any, query: str) -> A:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise ToolError(
            f"the editor's answer to the {query} query could not be read: {describe(exc)}"
        ) from exc


def _items(answer: Any, model: type[A], query: str) -> list[A]:
    if answer is None:
        return []
    if not isinstance(answer, list):
        raise ToolError(f"the editor's answer to the {query} query could not be read: expected a list")
    return [_read(model, item, query) for item in answer[:MAX_ANSWER_ITEMS]]
