"""The ``apply_patch`` tool: the edit format GPT-5 and codex models were trained on, applied through
the same path as ``edit`` (the workspace's editor buffers, a permission dialog with the diff per
file, review hunks, snapshots, the editors' undo).

All or nothing: the patch is parsed, every file read and every hunk placed, and every dialog
answered before the first file is written; a patch that does not apply changes no file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk, Proposal
from core.prompts import load
from core.record import struct
from core.tools import paths
from core.tools.apply_patch_hunks import apply_hunks
from core.tools.apply_patch_parse import AddFile, DeleteFile, FileOp, PatchError, UpdateFile, parse_patch
from core.tools.base import Tool, ToolParams, ToolResult, ToolSet
from core.tools.context import ToolContext
from core.tools.diagnostics import editor_errors
from core.tools.diff import file_diff
from core.tools.proposal import edited_note, settle

BOM = "\ufeff"
REPLACED_TOOLS = ("edit", "write")  # what a model that edits with patches is not offered


class ApplyPatchParams(ToolParams):
    input: str = Field(description="The whole patch, from '*** Begin Patch' to '*** End Patch'")


@struct
class Change:
    """One file the patch touches: its text before (None: absent) and after (None: deleted)."""

    path: Path
    rel: str
    before: str | None
    after: str | None
    verb: str  # A, M or D, as in the summary the model reads
    proposal: Proposal | None = None
    final: str | None = None


def offered_edit_tools(tools: ToolSet, patch: bool) -> ToolSet:
    """``tools`` with one way to change files: ``apply_patch`` instead of ``edit``/``write`` when the
    model edits with patches (and apply_patch is allowed), else without ``apply_patch``."""
    if patch and ApplyPatchTool.id in tools:
        return {k: t for k, t in tools.items() if k not in REPLACED_TOOLS}
    return {k: t for k, t in tools.items() if k != ApplyPatchTool.id}


class ApplyPatchTool(Tool[ApplyPatchParams]):
    id = "apply_patch"
    Params = ApplyPatchParams
    nul_allowed = frozenset({"input"})

    @property
    def description(self) -> str:
        return load("tools/apply_patch.md")

    async def execute(self, params: ApplyPatchParams, ctx: ToolContext) -> ToolResult:
        changes: list[Change] = []
        for op in parse_patch(params.input):
            changes.extend(await self._plan(ctx, op))
        seen: set[Path] = set()
        for change in changes:
            if change.path in seen:
                raise PatchError(
                    f"{change.rel} appears twice in the patch: put all its hunks under one "
                    "'*** Update File:' section. Nothing was changed."
                )
            seen.add(change.path)
        for change in changes:
            await self._ask(ctx, change)
        for change in changes:  # every file settled (the user may have typed meanwhile) before any write
            await self._settle(ctx, change)
        ctx.claim([change.path for change in changes])  # a file a background sub-agent holds: none written
        for change in changes:
            edit = ctx.edit_context(
                f"agent: apply_patch {change.rel}", change.proposal.approved if change.proposal else False
            )
            if change.final is None:
                await ctx.workspace.delete(change.path, edit)
            else:
                await ctx.workspace.write_bytes(change.path, change.final.encode("utf-8"), edit)
        return await self._result(ctx, changes)

    async def _plan(self, ctx: ToolContext, op: FileOp) -> list[Change]:
        path = paths.resolve(ctx, op.path)
        await paths.check_external(ctx, path)
        rel = paths.permission_pattern(ctx, path)
        if isinstance(op, AddFile):
            if (await ctx.workspace.stat(path)).exists:
                raise PatchError(
                    f"'*** Add File: {op.path}': {rel} already exists. Use '*** Update File:' to change it. "
                    "Nothing was changed."
                )
            return [Change(path, rel, None, op.content, "A")]
        before = await _read(ctx, path, rel, op.path)
        if isinstance(op, DeleteFile):
            return [Change(path, rel, before, None, "D")]
        after = _updated(before, op, rel)
        if op.move_to is None:
            return [Change(path, rel, before, after, "M")]
        target = paths.resolve(ctx, op.move_to)
        await paths.check_external(ctx, target)
        target_rel = paths.permission_pattern(ctx, target)
        if target != path and (await ctx.workspace.stat(target)).exists:
            raise PatchError(
                f"'*** Move to: {op.move_to}': {target_rel} already exists. Nothing was changed."
            )
        if target == path:
            return [Change(path, rel, before, after, "M")]
        return [Change(path, rel, before, None, "D"), Change(target, target_rel, None, after, "A")]

    async def _ask(self, ctx: ToolContext, change: Change) -> None:
        before, after = change.before or "", change.after
        diff = file_diff(change.rel, before, after or "")
        metadata = {"filepath": str(change.path), "diff": diff.diff}
        if after is None:
            title = f"Delete {change.rel}"
        else:
            title = f"{'Create' if change.before is None else 'Patch'} {change.rel}"
            metadata["after"] = after
            change.proposal = Proposal(after)
        request = PermissionAsk(
            "edit",
            [change.rel],
            always=[change.rel],
            title=title,
            metadata=metadata,
            proposal=change.proposal,
        )
        await ctx.ask(request)

    async def _settle(self, ctx: ToolContext, change: Change) -> None:
        before = change.before or ""
        if change.proposal is not None:
            _, change.final = await settle(ctx, change.path, change.rel, before, change.proposal.final)
            return
        now = await _read(ctx, change.path, change.rel, change.rel)
        if now != before:
            raise ToolError(
                f"The user changed {change.rel} while this patch waited for permission, so it was not "
                f"deleted and nothing was written. Read {change.rel} again before deleting it."
            )

    async def _result(self, ctx: ToolContext, changes: list[Change]) -> ToolResult:
        written = [c for c in changes if c.final is not None]
        found = await asyncio.gather(*(editor_errors(ctx, c.path) for c in written))
        lines, notes, files = [], [], []
        additions = deletions = 0
        for change in changes:
            shown = paths.display(ctx, change.path)
            lines.append(f"{change.verb} {shown}")
            diff = file_diff(change.rel, change.before or "", change.final or "")
            additions, deletions = additions + diff.additions, deletions + diff.deletions
            files.append({"filepath": str(change.path), "action": change.verb, "diff": diff.diff})
            if change.proposal is not None and change.after is not None and change.final is not None:
                notes.append(edited_note(change.rel, change.after, change.proposal.final))
        problems = "".join(text for text, _ in found)
        errors = {str(c.path): errs for c, (_, errs) in zip(written, found, strict=True) if errs}
        return ToolResult(
            title=", ".join(paths.display(ctx, c.path) for c in changes),
            output="Applied the patch:\n" + "\n".join(lines) + "".join(notes) + problems,
            metadata={
                "files": files,
                "diff": "".join(f["diff"] for f in files),
                "additions": additions,
                "deletions": deletions,
                "diagnostics": errors,
                "edited": any(notes),
            },
        )


async def _read(ctx: ToolContext, path: Path, rel: str, named: str) -> str:
    """The file's text; a ``PatchError`` when it is missing, a directory or not UTF-8."""
    st = await ctx.workspace.stat(path)
    if st.is_dir:
        raise PatchError(f"{named}: {rel} is a directory, not a file. Nothing was changed.")
    if not st.exists:
        raise PatchError(
            f"{paths.not_found_message(path)} (named in the patch as {named}). Nothing was changed."
        )
    try:
        return (await ctx.workspace.read_bytes(path)).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchError(f"Cannot patch {rel}: it is not a UTF-8 text file. Nothing was changed.") from exc


def _updated(before: str, op: UpdateFile, rel: str) -> str:
    """``before`` with the hunks applied, keeping its byte-order mark and CRLF line endings."""
    bom = before.startswith(BOM)
    body = before[1:] if bom else before
    crlf = body.count("\r\n") * 2 > body.count("\n")  # as the edit tool decides it
    if crlf:
        body = body.replace("\r\n", "\n")
    changed = apply_hunks(body, op.hunks, rel) if op.hunks else body
    if crlf:
        changed = changed.replace("\n", "\r\n")
    return (BOM if bom else "") + changed
