"""What ``/review`` reviews: the working tree's changes, a commit, a branch (or a pull request's ref)
against its base, or a range, resolved with git into the diff the agent reads.

A ref the user typed is resolved to a commit id first (``rev-parse --verify``) and only ids reach
the diff commands, so an argument can never act as a git option. Files the read rules guard as
secrets (``.env`` and the like) are left out of the diff and named, so their values never enter the
prompt.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from core.errors import InvalidInputError
from core.permission.bash_files import is_secret
from core.record import record

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 30.0
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id of the empty tree
BASES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")


@record
class ReviewTarget:
    """A resolved target: how the prompt names it, the command that shows its diff, the diff."""

    label: str
    command: str
    diff: str
    untracked: tuple[str, ...] = ()
    secret: tuple[str, ...] = ()  # changed files left out of the diff


class GitFailed(Exception):
    """A git command that failed; its message is git's own."""


async def git(directory: Path, *args: str) -> str:
    """The output of ``git args`` run in ``directory`` (no terminal, no pager, no colour)."""
    proc = await asyncio.create_subprocess_exec(
        "git",
        "--no-pager",
        *args,
        cwd=directory,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise GitFailed(f"git {args[0]} took more than {GIT_TIMEOUT_S:g} s") from None
    if proc.returncode != 0:
        raise GitFailed(err.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return out.decode("utf-8", "replace")


async def resolve_target(directory: Path, argument: str) -> ReviewTarget:
    """The target ``/review argument`` names; an ``InvalidInputError`` that says why when none."""
    words = argument.split()
    if len(words) > 1:
        raise InvalidInputError("/review takes one target: nothing, a commit, a branch, a ref or A..B")
    try:
        await git(directory, "rev-parse", "--git-dir")
    except (GitFailed, OSError) as exc:
        raise InvalidInputError(f"/review needs a git repository: {directory} is not in one ({exc})") from exc
    if not words:
        return await _working_tree(directory)
    word = words[0]
    if word.startswith("-"):
        raise InvalidInputError(
            f"/review {word}: a target is a commit, a branch, a ref or A..B, not an option"
        )
    if ".." in word:
        three = "..." in word
        left, right = word.split("..." if three else "..", 1)
        base = await _commit(directory, left or "HEAD", word)
        tip = await _commit(directory, right or "HEAD", word)
        if three:
            base = (await git(directory, "merge-base", base, tip)).strip()
        return await _range(directory, base, tip, f"the changes {word}", f"git diff {word}")
    tip = await _commit(directory, word, word)
    # ``word`` does not start with "-" (checked above), so it cannot be read as an option here.
    full = (await _quiet(directory, "rev-parse", "--symbolic-full-name", word)).strip()
    if word == "HEAD" or not full.startswith("refs/") or full.startswith("refs/tags/"):
        label = f"the commit {word}"
        return await _range(directory, f"{tip}^", tip, label, f"git show {word}", root_commit=tip)
    base_name, base = await _base(directory, tip, word)
    return await _range(directory, base, tip, f"{word} against {base_name}", f"git diff {base_name}...{word}")


async def _working_tree(directory: Path) -> ReviewTarget:
    head = (await _quiet(directory, "rev-parse", "--verify", "--quiet", "HEAD")).strip() or EMPTY_TREE
    names = (await git(directory, "diff", "--name-only", head)).splitlines()
    untracked = (await git(directory, "ls-files", "--others", "--exclude-standard")).splitlines()
    shown, secret = _split_secrets(names)
    diff = await git(directory, "diff", "--no-color", "--no-ext-diff", head, "--", *shown) if shown else ""
    return ReviewTarget(
        "the uncommitted changes in the working tree",
        "git diff HEAD",
        diff,
        tuple(u for u in untracked if not is_secret(u)),
        tuple(secret + [u for u in untracked if is_secret(u)]),
    )


async def _range(
    directory: Path, base: str, tip: str, label: str, command: str, root_commit: str | None = None
) -> ReviewTarget:
    if root_commit is not None and not (await _quiet(directory, "rev-parse", "--verify", "--quiet", base)):
        base = EMPTY_TREE  # the first commit of a repository has no parent
    names = (await git(directory, "diff", "--name-only", base, tip)).splitlines()
    shown, secret = _split_secrets(names)
    diff = (
        await git(directory, "diff", "--no-color", "--no-ext-diff", base, tip, "--", *shown) if shown else ""
    )
    return ReviewTarget(label, command, diff, (), tuple(secret))


async def _commit(directory: Path, word: str, named: str) -> str:
    """The commit id ``word`` names; an ``InvalidInputError`` naming ``named`` when it names none."""
    found = await _quiet(
        directory, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{word}^{{commit}}"
    )
    if not found.strip():
        raise InvalidInputError(
            f"/review {named}: {word!r} is not a commit, branch or ref of this repository "
            "(fetch a pull request first, e.g. git fetch origin pull/123/head:pr-123)"
        )
    return found.strip()


async def _base(directory: Path, tip: str, word: str) -> tuple[str, str]:
    """The branch ``word`` is compared with (the remote's default branch, else main or master) and
    the commit where ``word`` left it."""
    for name in BASES:
        base = (await _quiet(directory, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")).strip()
        if not base or base == tip:
            continue
        fork = (await _quiet(directory, "merge-base", base, tip)).strip()
        if fork and fork != tip:
            return name, fork
    raise InvalidInputError(
        f"/review {word}: no base branch to compare it with ({', '.join(BASES)} are missing or the same "
        f"commit); name a range instead, e.g. /review main...{word}"
    )


async def _quiet(directory: Path, *args: str) -> str:
    """``git args``'s output, or "" when it fails (an answer of "no such thing")."""
    try:
        return await git(directory, *args)
    except GitFailed:
        return ""


def _split_secrets(names: list[str]) -> tuple[list[str], list[str]]:
    shown = [n for n in names if not is_secret(n)]
    return shown, [n for n in names if is_secret(n)]
