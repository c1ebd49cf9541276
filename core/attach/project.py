"""The context items the server reads itself: a folder, the git working tree's changes, a session."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from core.errors import InvalidInputError, NotFoundError
from core.message.models import AssistantMessage, MessageWithParts, Session, TextPart
from core.tools.filetypes import SNIFF_BYTES, binary_reason
from core.tools.ignore import JUNK_NAMES, Entry, walk
from core.tools.list import render
from core.workspace import Workspace

log = logging.getLogger(__name__)

MAX_FOLDER_ENTRIES = 500
MAX_FOLDER_FILES = 200  # files looked at for their text, within the token budget
MAX_FILE_BYTES = 400_000
MAX_DIFF_CHARS = 200_000
GIT_TIMEOUT = 20.0


def folder_path(path: str, directory: Path) -> Path:
    folder = Path(path)
    return (folder if folder.is_absolute() else directory / folder).resolve()


def folder_tree(root: Path, worktree: Path, label: str) -> tuple[list[Entry], str]:
    """The entries (breadth first, ignored and generated files left out) and their tree listing."""
    if not root.exists():
        raise NotFoundError(f"the folder {root} does not exist")
    if not root.is_dir():
        raise InvalidInputError(f"{root} is a file, not a folder: attach it as a file")
    entries: list[Entry] = []
    more = False
    for entry in walk(root, top=worktree, hidden=True, skip_dirs=JUNK_NAMES):
        if len(entries) == MAX_FOLDER_ENTRIES:
            more = True
            break
        entries.append(entry)
    _, newline, tree = render(root, entries).partition("\n")  # its first line is the absolute path
    listing = label + newline + tree
    if not entries:
        listing += "\n(empty, or everything in it is ignored)"
    if more:
        listing += f"\n(the first {MAX_FOLDER_ENTRIES} entries; the folder has more)"
    return entries, listing


async def folder_files(
    entries: list[Entry], root: Path, workspace: Workspace, budget: int, count: Callable[[str], int]
) -> tuple[list[str], list[str]]:
    """The text of the folder's files, in listing order, until ``budget`` tokens are spent;
    returns the file blocks and the notes on what was left out (binary, too large, over budget)."""
    blocks: list[str] = []
    notes: list[str] = []
    spent = 0
    files = [e.path for e in entries if not e.is_dir]
    for index, path in enumerate(files[:MAX_FOLDER_FILES]):
        rel = path.relative_to(root).as_posix()
        stat = await workspace.stat(path)
        if stat.size > MAX_FILE_BYTES and not workspace.is_open(path):
            notes.append(f"{rel}: left out, {stat.size:,} bytes")
            continue
        data = await workspace.read_bytes(path)
        reason = binary_reason(path, data[:SNIFF_BYTES])
        if reason is not None:
            notes.append(f"{rel}: left out, not text ({reason})")
            continue
        text = await workspace.read_text(path) if workspace.is_open(path) else data.decode("utf-8", "replace")
        block = f'<file path="{rel}">\n{text.rstrip()}\n</file>'
        cost = count(block)
        if spent + cost > budget:
            left = len(files) - index
            notes.append(f"{left} more files left out: the budget of {budget:,} tokens is spent")
            break
        blocks.append(block)
        spent += cost
    else:
        if len(files) > MAX_FOLDER_FILES:
            notes.append(f"{len(files) - MAX_FOLDER_FILES} more files left out (at most {MAX_FOLDER_FILES})")
    return blocks, notes


async def _git(worktree: Path, *args: str) -> tuple[int, str, str]:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=worktree,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        raise InvalidInputError(f"git could not be run to read the changes: {exc}") from exc
    try:
        out, err = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise InvalidInputError(f"git took more than {GIT_TIMEOUT:g} s to show the changes") from None
    return proc.returncode or 0, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def working_tree_changes(worktree: Path) -> str:
    """The working tree's changes against HEAD, staged and unstaged, and the untracked files."""
    code, out, _ = await _git(worktree, "rev-parse", "--is-inside-work-tree")
    if code != 0 or out.strip() != "true":
        raise InvalidInputError(f"{worktree} is not a git repository: there are no git changes to attach")
    diff_args = ("diff", "--no-color", "--no-ext-diff")
    has_head = (await _git(worktree, "rev-parse", "--verify", "--quiet", "HEAD"))[0] == 0
    if has_head:
        code, diff, err = await _git(worktree, *diff_args, "HEAD")
    else:  # no commit yet: what is staged, then what is not
        code, staged, err = await _git(worktree, *diff_args, "--cached")
        diff = staged + (await _git(worktree, *diff_args))[1]
    if code != 0:
        raise InvalidInputError(f"git diff failed: {err.strip()}")
    untracked = (await _git(worktree, "ls-files", "--others", "--exclude-standard"))[1].split()
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + f"\n… (the diff is cut at {MAX_DIFF_CHARS:,} characters)\n"
    body = diff.rstrip() or "No changes to tracked files."
    if untracked:
        body += "\n\nUntracked files (not shown in the diff):\n" + "\n".join(untracked[:200])
    return f"<changes>\n{body}\n</changes>"


def session_label(session: Session) -> str:
    return session.title or session.id


def session_text(session: Session, messages: list[MessageWithParts]) -> str:
    """The latest summary of an earlier session, else its final answer."""
    answers = [m for m in messages if isinstance(m.info, AssistantMessage) and _text(m)]
    summaries = [m for m in answers if isinstance(m.info, AssistantMessage) and m.info.summary]
    if not answers:
        raise InvalidInputError(f"the session {session.id} has no answer or summary yet")
    chosen = (summaries or answers)[-1]
    what = "summary" if summaries else "final answer"
    title = session.title.replace('"', "'")
    return f'<session id="{session.id}" title="{title}" part="{what}">\n{_text(chosen)}\n</session>'


def _text(message: MessageWithParts) -> str:
    return "".join(p.text for p in message.parts if isinstance(p, TextPart) and not p.synthetic).strip()
