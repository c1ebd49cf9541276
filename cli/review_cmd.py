"""`agentls review SESSION`: list the agent's pending changes as hunks; keep or undo them by id."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentls.boot import UsageError
from cli.trust_prompt import settle_trust
from core.api import Agent
from core.errors import InvalidInputError
from core.message.review import Hunk, ReviewResult
from core.open import open_agent


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls review`."""
    parser = sub.add_parser(
        "review",
        help="list the agent's pending changes (hunks) of a session, keep or undo them",
        description="Without --keep/--undo: list the pending hunks. Undo keeps your own edits and "
        "reports a conflict (changing nothing) where they overlap the agent's lines.",
    )
    parser.add_argument("session", help="the session id")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--keep", nargs="*", metavar="HUNK", help="keep these hunks (or --file, --all)")
    action.add_argument("--undo", nargs="*", metavar="HUNK", help="undo these hunks (or --file, --all)")
    parser.add_argument("--file", help="choose every pending hunk of this file (relative to -C)")
    parser.add_argument("--all", action="store_true", help="choose every pending hunk")
    parser.add_argument("-C", dest="directory", default=".", help="the project folder")
    parser.set_defaults(func=review)


def _choice(args: argparse.Namespace) -> tuple[list[str] | None, str | None]:
    hunks = args.keep if args.keep is not None else args.undo
    if hunks is None:
        if args.file is not None or args.all:
            raise UsageError("--file and --all go with --keep or --undo")
        return None, None
    if sum([bool(hunks), args.file is not None, args.all]) != 1:
        raise UsageError("--keep and --undo take hunk ids, --file PATH or --all (one of them)")
    return (list(hunks) or None), args.file


async def review(args: argparse.Namespace) -> int:
    """List, keep or undo; exit status 1 when an undo conflicted."""
    hunk_ids, file = _choice(args)
    await settle_trust(Path(args.directory), trust_flag=False, terminal=sys.stdin.isatty())
    app = await open_agent(Path(args.directory))
    try:
        if args.keep is not None or args.undo is not None:
            act = app.keep if args.keep is not None else app.undo
            result = await act(args.session, hunk_ids, _relative(app, file))
            return _report(result, "kept" if args.keep is not None else "undone")
        hunks = await app.review(args.session)
    finally:
        await app.close()
    if not hunks:
        print("Nothing to review.")
    for hunk in hunks:
        print(_line(hunk))
        for text in hunk.before:
            print("  -" + text.rstrip("\r\n"))
        for text in hunk.after:
            print("  +" + text.rstrip("\r\n"))
    return 0


def _relative(app: Agent, file: str | None) -> str | None:
    if file is None:
        return None
    path = (Path.cwd() / file).resolve()
    try:
        return path.relative_to(app.worktree.resolve()).as_posix()
    except ValueError:
        raise InvalidInputError(f"{file} is outside the project {app.worktree}") from None


def _line(hunk: Hunk) -> str:
    return f"{hunk.id}  {hunk.file}: {hunk.lines_label()}{hunk.by()}"


def _report(result: ReviewResult, done: str) -> int:
    if not result.changed and not result.conflicts:
        print("Nothing changed (no pending hunk chosen).")
    for hunk in result.changed:
        print(f"{done}: {_line(hunk)}")
    for conflict in result.conflicts:
        print(f"conflict: {conflict.hunkID}  {conflict.file}: {conflict.reason}", file=sys.stderr)
        for text in conflict.agent:
            print("  agent: " + text.rstrip("\r\n"), file=sys.stderr)
        for text in conflict.current:
            print("  now:   " + text.rstrip("\r\n"), file=sys.stderr)
    return 1 if result.conflicts else 0
