"""`agentls trust list | add [PATH] | revoke [PATH]`: the projects whose own files the agent may use.

A project that brings its own config, commands, agents or skills is asked about the first time a
front end opens it (core.project_trust); these commands show and change the remembered answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.config.paths import data_dir, worktree_of
from core.project_trust import items, store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `trust` command group."""
    parser = subparsers.add_parser(
        "trust",
        help="list, add or revoke trusted projects (whose own config, commands and MCP servers are used)",
        description="A project's own agentls.json, .agentls/, .opencode/ and .claude/commands are used "
        "only once you trust it; agentls asks the first time it opens one. These commands change the "
        "remembered answers.",
    )
    parser.set_defaults(func=lambda _args: _help(parser))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    listing = actions.add_parser("list", help="the trusted projects")
    listing.add_argument("--json", action="store_true", help="print them as a JSON array")
    listing.set_defaults(func=run_list)

    add = actions.add_parser("add", help="trust a project (default: the one of the current directory)")
    add.add_argument("path", nargs="?", type=Path, help="a folder of the project")
    add.set_defaults(func=run_add)

    revoke = actions.add_parser("revoke", help="stop trusting a project: it is asked about again")
    revoke.add_argument("path", nargs="?", type=Path, help="a folder of the project, or its listed path")
    revoke.set_defaults(func=run_revoke)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _project(path: Path | None) -> Path:
    folder = store.canonical(path or Path.cwd())
    if not folder.is_dir():
        raise NotADirectoryError(f"agentls trust: {folder} is not a folder")
    return worktree_of(folder)


def run_list(args: argparse.Namespace) -> int:
    """Print the trusted projects, one a line (path, then since when)."""
    projects = store.read(data_dir())
    if args.json:
        rows = [{"path": path, **info} for path, info in projects.items()]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not projects:
        print("no trusted projects", file=sys.stderr)
    for path, info in projects.items():
        print(f"{path}  {info.get('since', '')}".rstrip())
    return 0


def run_add(args: argparse.Namespace) -> int:
    """Trust the project of ``args.path``."""
    try:
        worktree = _project(args.path)
    except NotADirectoryError as exc:
        print(exc, file=sys.stderr)
        return 2
    name = store.add(data_dir(), worktree)
    own = items.found(worktree, worktree)
    what = f": its own {', '.join(own)} will be used" if own else " (it has no config of its own yet)"
    print(f"trusted {name}{what}", file=sys.stderr)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    """Forget the trust of ``args.path``'s project (a listed path that no longer exists works too)."""
    given = store.canonical(args.path or Path.cwd())
    worktree = worktree_of(given) if given.is_dir() else given
    if not store.revoke(data_dir(), worktree):
        print(f"agentls trust: {worktree} is not a trusted project (see agentls trust list)", file=sys.stderr)
        return 1
    print(f"revoked {worktree}: agentls asks before it uses its own files again", file=sys.stderr)
    return 0
