"""Review comments: the user's notes on lines of the agent's changes, sent as one prompt.

Like a pull-request review, the comments of a batch reach the agent together: one user message
that names each file and line range, quotes those lines as they are now, and says which of the
agent's hunks the comment is about. Bad input (no comments, a path outside the project, an unknown
hunk, lines past the end of the file) is refused before anything is sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from core.errors import InvalidInputError, NotFoundError
from core.message.review import Hunk, ReviewComment
from core.prompts import load
from core.workspace import Workspace

_QUOTED_LINES = 30  # lines of the file quoted per comment; the agent reads the file for more
MAX_COMMENTS = 200


async def review_prompt(
    comments: Sequence[ReviewComment], hunks: Sequence[Hunk], workspace: Workspace, worktree: Path
) -> str:
    """The prompt text for a batch of ``comments`` on a session whose hunks are ``hunks``."""
    if not comments:
        raise InvalidInputError("comments: a review needs at least one comment")
    if len(comments) > MAX_COMMENTS:
        raise InvalidInputError(f"comments: {len(comments)} comments; a review takes at most {MAX_COMMENTS}")
    by_id = {h.id: h for h in hunks}
    items = [await _item(i, c, by_id, workspace, worktree) for i, c in enumerate(comments)]
    count = "one comment" if len(items) == 1 else f"{len(items)} comments"
    return load("review/comments.md").replace("{count}", count).replace("{items}", "\n\n".join(items))


def project_path(path: str, worktree: Path) -> str:
    """``path`` (relative to ``worktree`` or absolute) as a worktree-relative POSIX path; one that
    leaves the project is an InvalidInputError."""
    if not path.strip():
        raise InvalidInputError("path is empty")
    root = worktree.resolve()
    target = (root / path).resolve()
    try:
        rel = target.relative_to(root)
    except ValueError:
        raise InvalidInputError(f"{path} is outside the project ({root})") from None
    if rel == Path():
        raise InvalidInputError(f"{path} is the project folder, not a file")
    return rel.as_posix()


async def _item(
    index: int, comment: ReviewComment, hunks: dict[str, Hunk], workspace: Workspace, worktree: Path
) -> str:
    where = f"comments.{index}"
    if not comment.body.strip():
        raise InvalidInputError(f"{where}.body: the comment is empty")
    if comment.startLine < 1 or comment.endLine < comment.startLine:
        raise InvalidInputError(
            f"{where}: lines {comment.startLine}-{comment.endLine} are not a range "
            "(1-based, startLine <= endLine)"
        )
    try:
        rel = project_path(comment.path, worktree)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}.path: {exc}") from None
    hunk = None
    if comment.hunkID is not None:
        hunk = hunks.get(comment.hunkID)
        if hunk is None:
            raise NotFoundError(f"{where}.hunkID: no hunk {comment.hunkID} in this session")
        if hunk.file != rel:
            raise InvalidInputError(f"{where}.hunkID: hunk {hunk.id} changed {hunk.file}, not {rel}")
    lines = await _lines(workspace, worktree / rel)
    if lines is None and hunk is None:
        raise InvalidInputError(f"{where}.path: {rel} does not exist (comment on a hunk of a removed file)")
    if lines is not None and comment.startLine > max(len(lines), 1):
        raise InvalidInputError(
            f"{where}: line {comment.startLine} is past the end of {rel} ({len(lines)} lines)"
        )
    span = (
        f"line {comment.startLine}"
        if comment.startLine == comment.endLine
        else (f"lines {comment.startLine}-{comment.endLine}")
    )
    head = f"## {index + 1}. {rel}, {span}"
    if hunk is not None:
        head += f" (on your change to {hunk.lines_label()}, hunk {hunk.id})"
    parts = [head]
    if lines:
        parts.append(_quote(lines[comment.startLine - 1 : comment.endLine], rel))
    parts.append(comment.body.strip())
    return "\n".join(parts)


async def _lines(workspace: Workspace, path: Path) -> list[str] | None:
    """The file's lines as they are now (an open buffer wins); [] for a file that is not text."""
    try:
        data = await workspace.read_bytes(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return []


def _quote(lines: list[str], rel: str) -> str:
    shown = lines[:_QUOTED_LINES]
    if len(lines) > len(shown):
        shown.append(f"… {len(lines) - len(shown)} more lines")
    body = "\n".join(shown)
    runs = [len(m) for m in re.findall(r"`{3,}", body)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    language = Path(rel).suffix.lstrip(".")
    return f"{fence}{language}\n{body}\n{fence}"
