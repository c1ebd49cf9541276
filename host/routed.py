"""The workspace and editor a host's agent is opened with: each call goes to the front end that
lent what it needs (``host/lenders.py``), and a file no attached editor has open to the disk, as
an agent in a process of its own would write it."""

from __future__ import annotations

from pathlib import Path

from core.editor import (
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
from core.workspace import DiskWorkspace, EditContext, FileStat
from host.lenders import Lenders, with_token


class RoutedWorkspace:
    """``core.workspace.Workspace``: the buffers of the editor that has the file open, else the disk."""

    def __init__(self, root: Path, lenders: Lenders) -> None:
        self.root = root.resolve()
        self._lenders = lenders
        self._disk = DiskWorkspace(self.root)

    async def read_bytes(self, path: Path) -> bytes:
        if (owner := self._lenders.owner(path)) is not None:
            data: bytes = await owner.call("workspace.read_bytes", path=path)
            return data
        return await self._disk.read_bytes(path)

    async def read_text(self, path: Path) -> str:
        if (owner := self._lenders.owner(path)) is not None:
            text: str = await owner.call("workspace.read_text", path=path)
            return text
        return await self._disk.read_text(path)

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        if (owner := self._lenders.owner(path)) is not None:
            await owner.call("workspace.write_bytes", path=path, data=data, ctx=ctx)
        else:
            await self._disk.write_bytes(path, data, ctx)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        if (owner := self._lenders.owner(path)) is not None:
            await owner.call("workspace.delete", path=path, ctx=ctx)
        else:
            await self._disk.delete(path, ctx)

    async def stat(self, path: Path) -> FileStat:
        if (owner := self._lenders.owner(path)) is not None:
            stat: FileStat = await owner.call("workspace.stat", path=path)
            return stat
        return await self._disk.stat(path)

    def is_open(self, path: Path) -> bool:
        return self._lenders.showing(path) is not None

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        if (owner := self._lenders.owner(path)) is not None:
            found: list[str] = await owner.call("workspace.wait_diagnostics", path=path, timeout=timeout)
            return found
        return []  # the disk has no language servers to ask


class RoutedEditor:
    """``core.editor.EditorIntelligence``: the language servers of the attached editors."""

    def __init__(self, lenders: Lenders) -> None:
        self._lenders = lenders

    def supported(self) -> frozenset[EditorQuery]:
        return self._lenders.supported()

    async def definition(self, at: EditorLocation) -> list[EditorLocation]:
        found: list[EditorLocation] = await self._lenders.editor("definition", at.path).call(
            "editor.definition", at=at
        )
        return found

    async def references(self, at: EditorLocation) -> list[EditorLocation]:
        found: list[EditorLocation] = await self._lenders.editor("references", at.path).call(
            "editor.references", at=at
        )
        return found

    async def hover(self, at: EditorLocation) -> str:
        text: str = await self._lenders.editor("hover", at.path).call("editor.hover", at=at)
        return text

    async def document_symbols(self, path: Path) -> list[EditorSymbol]:
        found: list[EditorSymbol] = await self._lenders.editor("documentSymbols", path).call(
            "editor.document_symbols", path=path
        )
        return found

    async def workspace_symbols(self, query: str) -> list[EditorSymbol]:
        found: list[EditorSymbol] = await self._lenders.editor("workspaceSymbols").call(
            "editor.workspace_symbols", query=query
        )
        return found

    async def diagnostics(self, path: Path) -> list[EditorDiagnostic]:
        found: list[EditorDiagnostic] = await self._lenders.editor("diagnostics", path).call(
            "editor.diagnostics", path=path
        )
        return found

    async def rename(self, at: EditorLocation, new_name: str) -> list[EditorFileEdit]:
        edits: list[EditorFileEdit] = await self._lenders.editor("rename", at.path).call(
            "editor.rename", at=at, new_name=new_name
        )
        return edits

    async def code_actions(
        self, path: Path, lines: tuple[int, int], only: tuple[str, ...] = ()
    ) -> list[EditorCodeAction]:
        found: list[EditorCodeAction] = await self._lenders.editor("codeActions", path).call(
            "editor.code_actions", path=path, lines=lines, only=only
        )
        return found

    async def code_action(
        self, path: Path, lines: tuple[int, int], title: str, only: tuple[str, ...] = ()
    ) -> EditorActionEdit | None:
        lender = self._lenders.editor("codeActions", path)
        action = await lender.call("editor.code_action", path=path, lines=lines, title=title, only=only)
        resolved: EditorActionEdit | None = with_token(lender, action)
        return resolved

    async def run_command(self, token: str) -> list[Path]:
        lender_id, _, theirs = token.partition(":")
        if not lender_id.isdigit() or not theirs:
            raise ToolError(f"{token!r} is not a code action's command token: ask for the actions again")
        changed: list[Path] = await self._lenders.by_id(int(lender_id)).call(
            "editor.run_command", token=theirs
        )
        return changed

    async def format(self, path: Path, lines: tuple[int, int] | None) -> list[EditorTextEdit]:
        edits: list[EditorTextEdit] = await self._lenders.editor("format", path).call(
            "editor.format", path=path, lines=lines
        )
        return edits
