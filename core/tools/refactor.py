"""Edits the editor's language servers computed (a rename, a code action, a format), applied by the agent.

The editor only proposes: its answer is text edits per file. They land like every agent edit — one
permission dialog with the diff of every file, written through the workspace (in the editor's
buffers, one undo step per file, review hunks, snapshots). All or nothing: every file's new text is
made and checked first, then the user's typing while the dialog waited is rebased under it
(``core.tools.rebase``); a file that no longer fits the edit, or whose changed lines the user
touched, fails the call with nothing written. If the editor refuses a write half-way, the files
already written are put back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.editor import EditorFileEdit, EditorTextEdit
from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.record import record
from core.tools import paths
from core.tools.context import ToolContext
from core.tools.diff import file_diff
from core.tools.rebase import rebase

MAX_FILES = 200  # a rename wider than this is not one reviewable step


@record
class FileChange:
    """One file's text before and after an editor-computed edit."""

    path: Path
    rel: str
    before: str
    after: str


def apply_text_edits(text: str, edits: Sequence[EditorTextEdit], label: str) -> str:
    """``text`` with ``edits`` applied (all positions refer to ``text``); a ToolError when one does
    not fit it (a line past the end, edits that overlap): the file changed since the editor looked."""
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")

    def offset(line: int, column: int) -> int:
        if line >= len(starts):
            if line == len(starts) and column == 0:  # "the line after the last": the end
                return len(text)
            raise ToolError(
                f"the editor's edit reaches line {line + 1} of {label}, which has {len(starts)} lines: "
                "the file changed since the editor computed it. Nothing was changed; ask again."
            )
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
        if end > starts[line] and text[end - 1] == "\r":
            end -= 1
        return min(starts[line] + column, end)  # LSP: a column past the line's end means its end

    spans = sorted(
        ((offset(*e.start), offset(*e.end), e.text) for e in edits), key=lambda span: (span[0], span[1])
    )
    out: list[str] = []
    done = 0
    for start, end, new in spans:
        if start < done or end < start:
            raise ToolError(
                f"the editor's edits of {label} overlap, so they cannot be applied; nothing was changed."
            )
        out.append(text[done:start])
        out.append(new)
        done = end
    out.append(text[done:])
    return "".join(out)


async def file_changes(ctx: ToolContext, edits: Sequence[EditorFileEdit]) -> list[FileChange]:
    """Each edited file's text now and after the edit; files outside the project ask first."""
    by_path: dict[Path, list[EditorTextEdit]] = {}
    for file_edit in edits:
        by_path.setdefault(file_edit.path, []).extend(file_edit.edits)
    if len(by_path) > MAX_FILES:
        raise ToolError(
            f"the edit would change {len(by_path)} files, more than {MAX_FILES}; nothing was changed. "
            "Make it in smaller parts."
        )
    changes = []
    for path, text_edits in by_path.items():
        await paths.check_external(ctx, path)
        rel = paths.permission_pattern(ctx, path)
        try:
            before = (await ctx.workspace.read_bytes(path)).decode("utf-8")
        except FileNotFoundError as exc:
            raise ToolError(
                f"the editor's edit changes {rel}, which does not exist; nothing was changed."
            ) from exc
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"the editor's edit changes {rel}, which is not UTF-8 text; nothing was changed."
            ) from exc
        after = apply_text_edits(before, text_edits, rel)
        if after != before:
            changes.append(FileChange(path, rel, before, after))
    return sorted(changes, key=lambda c: c.rel)


def changes_diff(changes: Sequence[FileChange]) -> str:
    """One unified diff of every changed file."""
    return "".join(file_diff(c.rel, c.before, c.after).diff for c in changes)


async def apply_changes(
    ctx: ToolContext, title: str, label: str, changes: Sequence[FileChange]
) -> list[FileChange]:
    """Ask once for every file, then write them all (or none); the changes as written."""
    rels = [c.rel for c in changes]
    metadata = {"filepath": str(changes[0].path), "files": [str(c.path) for c in changes]}
    metadata["diff"] = changes_diff(changes)
    if len(changes) == 1:  # the clients preview one file's new text beside it
        metadata["after"] = changes[0].after
    await ctx.ask(PermissionAsk("edit", rels, always=rels, title=title, metadata=metadata))
    settled = [await _settle(ctx, c) for c in changes]
    ctx.claim([c.path for c in settled])  # a file a background sub-agent holds: none written
    written: list[FileChange] = []
    try:
        for change in settled:
            await ctx.workspace.write_bytes(
                change.path, change.after.encode("utf-8"), ctx.edit_context(f"agent: {label}", False)
            )
            written.append(change)
    except ToolError as exc:
        await _put_back(ctx, label, written)
        kept = f" The {len(written)} file(s) already changed were put back." if written else ""
        raise ToolError(f"{exc}{kept} Nothing of this edit was kept.") from exc
    return settled


async def _settle(ctx: ToolContext, change: FileChange) -> FileChange:
    """The change rebased over what the user typed while the dialog waited; a ToolError on overlap."""
    st = await ctx.workspace.stat(change.path)
    now = (await ctx.workspace.read_bytes(change.path)).decode("utf-8", errors="replace") if st.exists else ""
    if now == change.before:
        return change
    merged = rebase(change.before, change.after, now)
    if merged is None:
        raise ToolError(
            f"{change.rel} changed while this edit waited for permission, in or next to the lines it "
            "changes, so no file was written. Ask the editor again for the edit on the current text."
        )
    return FileChange(change.path, change.rel, now, merged)


async def _put_back(ctx: ToolContext, label: str, written: Sequence[FileChange]) -> None:
    for change in reversed(written):
        await ctx.workspace.write_bytes(
            change.path, change.before.encode("utf-8"), ctx.edit_context(f"agent: undo {label}", False)
        )
