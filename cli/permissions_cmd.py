"""`agentls permissions list | revoke ID`: the "always" approvals remembered for this project."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from core.config.paths import data_dir, worktree_of
from core.storage import DB_NAME, Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `permissions` command group."""
    parser = subparsers.add_parser("permissions", help="list or revoke remembered permission approvals")
    parser.add_argument(
        "-C", "--directory", type=Path, default=None, help="working directory (default: the current one)"
    )
    parser.set_defaults(func=lambda _args: _help(parser))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    listing = actions.add_parser("list", help="this project's approvals, oldest first")
    listing.add_argument("--json", action="store_true", help="print the approvals as a JSON array")
    listing.set_defaults(func=run_list)

    revoke = actions.add_parser("revoke", help="forget one approval: the next such call asks again")
    revoke.add_argument("id", metavar="ID", help="approval id, as shown by `agentls permissions list`")
    revoke.set_defaults(func=run_revoke)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _worktree(args: argparse.Namespace) -> Path:
    return worktree_of((args.directory or Path.cwd()).resolve())


async def run_list(args: argparse.Namespace) -> int:
    """Print this project's approvals."""
    worktree = _worktree(args)
    store = await Store.open(data_dir() / DB_NAME)
    try:
        project = await store.ensure_project(worktree)
        approvals = await store.list_approvals(project.id)
    finally:
        await store.close()
    if args.json:
        rows = [
            {"id": a.id, "permission": a.permission, "pattern": a.pattern, "time": a.time_created}
            for a in approvals
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not approvals:
        print(f"no remembered approvals in {worktree}", file=sys.stderr)
    for a in approvals:
        stamp = datetime.fromtimestamp(a.time_created / 1000).strftime("%Y-%m-%d %H:%M")
        print(f"{a.id}  {stamp}  {a.permission}  {a.pattern}")
    return 0


async def run_revoke(args: argparse.Namespace) -> int:
    """Forget one approval of this project (NotFoundError → exit status 1 with the message)."""
    store = await Store.open(data_dir() / DB_NAME)
    try:
        project = await store.ensure_project(_worktree(args))
        await store.revoke_approval(project.id, args.id)
    finally:
        await store.close()
    print(f"revoked {args.id}", file=sys.stderr)
    return 0
