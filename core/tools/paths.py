"""Where a tool's path argument points, how permissions name it, and the external-directory check."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from core.permission.request import PermissionAsk
from core.tools.context import ToolContext


def resolve(ctx: ToolContext, raw: str | None) -> Path:
    """An absolute path with symlinks and ``..`` resolved; relative paths start at ``ctx.directory``."""
    if not raw:
        return ctx.directory.resolve()
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = ctx.directory / path
    return path.resolve()


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (both already resolved)."""
    return path == root or root in path.parents


def permission_pattern(ctx: ToolContext, path: Path) -> str:
    """The worktree-relative path (POSIX style) used in permission patterns; absolute when outside."""
    return pattern_in(ctx.worktree, path)


def pattern_in(worktree: Path, path: Path) -> str:
    """``permission_pattern`` for a worktree without a tool call (a command template's files)."""
    root = worktree.resolve()
    if is_within(path, root) and path != root:
        return path.relative_to(root).as_posix()
    return path.as_posix()


def display(ctx: ToolContext, path: Path) -> str:
    """How a path is shown to the model: relative to the working directory when below it."""
    cwd = ctx.directory.resolve()
    if is_within(path, cwd) and path != cwd:
        return path.relative_to(cwd).as_posix()
    return str(path)


async def check_external(ctx: ToolContext, path: Path, *, is_dir: bool = False) -> None:
    """Ask ``external_directory`` before touching anything outside the worktree."""
    request = external_request(path, ctx.worktree, ctx.output_dir, is_dir=is_dir)
    if request is not None:
        await ctx.ask(request)


def external_request(
    path: Path, worktree: Path, output_dir: Path | None, *, is_dir: bool = False
) -> PermissionAsk | None:
    """The ``external_directory`` request for ``path`` (resolved), or None inside the worktree."""
    if is_within(path, worktree.resolve()):
        return None
    # Our own saved tool outputs are meant to be read back; asking for them would only add friction.
    if output_dir is not None and is_within(path, output_dir.resolve()):
        return None
    parent = path if is_dir else path.parent
    glob = f"{parent.as_posix().rstrip('/')}/*"
    return PermissionAsk(
        "external_directory",
        [glob],
        always=[glob],
        title=f"Access outside the project: {parent}",
        metadata={"filepath": str(path), "parentDir": str(parent)},
    )


def read_requests(path: Path, worktree: Path, output_dir: Path | None = None) -> list[PermissionAsk]:
    """What reading the file ``path`` (resolved) asks, in order, as the ``read`` tool asks it:
    ``external_directory`` outside the worktree, then ``read`` (which the rules ask for ``.env``)."""
    rel = pattern_in(worktree, path)
    read = PermissionAsk("read", [rel], always=[rel], title=f"Read {rel}")
    external = external_request(path, worktree, output_dir)
    return [read] if external is None else [external, read]


def suggestions(path: Path, limit: int = 3) -> list[Path]:
    """Entries of the same folder whose names look like the missing ``path``'s name."""
    folder = path.parent
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    wanted = path.name.lower()
    stem = Path(wanted).stem
    # Same name with another extension, or a longer name containing the wanted one, then typos.
    close = [n for n in names if Path(n.lower()).stem == stem or wanted in n.lower()]
    close += difflib.get_close_matches(path.name, names, n=limit, cutoff=0.6)
    unique = list(dict.fromkeys(close))
    return [folder / n for n in unique[:limit]]


def not_found_message(path: Path) -> str:
    """A "file not found" error with "did you mean" suggestions from the same folder."""
    message = f"File not found: {path}"
    close = suggestions(path)
    if close:
        listed = "\n".join(str(p) for p in close)
        message += f"\n\nDid you mean one of these?\n{listed}"
    return message
