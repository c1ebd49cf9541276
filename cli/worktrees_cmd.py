"""`agentls worktrees`: the worktrees agentls made for this repository — list, diff, merge, discard,
clean. `agentls run --worktree` starts a session in a new one (see cli/run_cmd.py)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cli.terminal_input import read_line
from core.config.paths import data_dir
from core.worktrees import service
from core.worktrees.service import Worktree


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls worktrees`."""
    parser = sub.add_parser("worktrees", help="the agent's worktree sessions of this repository")
    parser.add_argument("-C", dest="directory", default=".", help="a folder of the repository")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="every worktree with its branch and what it changed (the default)")
    for name, text in (("diff", "what a worktree changed, as a diff"), ("path", "print a worktree's folder")):
        one = actions.add_parser(name, help=text)
        one.add_argument("name")
    merge = actions.add_parser("merge", help="commit a worktree's changes on its branch and merge it here")
    merge.add_argument("name")
    how = merge.add_mutually_exclusive_group()
    how.add_argument("--squash", dest="how", action="store_const", const="squash", help="one commit")
    how.add_argument("--ff-only", dest="how", action="store_const", const="ff-only", help="fast-forward only")
    discard = actions.add_parser("discard", help="remove a worktree and its branch")
    discard.add_argument("name")
    discard.add_argument("--yes", action="store_true", help="do not ask")
    clean = actions.add_parser("clean", help="remove the worktrees with nothing left to merge")
    clean.add_argument("--yes", action="store_true", help="do not ask")
    parser.set_defaults(func=run, how="merge")


async def run(args: argparse.Namespace) -> int:
    repo = service.repository(Path(args.directory))
    base = data_dir()
    action = args.action or "list"
    if action == "list":
        return _list(repo, base)
    if action == "clean":
        return await _clean(repo, base, args.yes)
    made = service.find(repo, args.name, base)
    if action == "path":
        print(made.path)
        return 0
    if action == "diff":
        sys.stdout.write(service.diff(made))
        return 0
    if action == "merge":
        merged = service.merge(made, args.how)
        print(f"agentls: {merged.message}", file=sys.stderr)
        for name in merged.files:
            print(f"  {name}")
        if merged.outcome == "merged":
            print(f"agentls: `agentls worktrees discard {made.name}` removes the worktree", file=sys.stderr)
        return 0 if merged.outcome == "merged" else 1
    if not await _confirm(f"discard the worktree {made.name} and its branch {made.branch}", args.yes):
        return 1
    service.discard(made)
    print(f"agentls: discarded {made.name}", file=sys.stderr)
    return 0


def _list(repo: Path, base: Path) -> int:
    found = service.every(repo, base)
    if not found:
        print(f'no worktree sessions for {repo} (`agentls run --worktree NAME "…"` starts one)')
        return 0
    for made in found:
        print(_line(made))
    return 0


def _line(made: Worktree) -> str:
    state = service.status(made)
    if state.missing:
        what = "its folder is gone (discard it)"
    elif state.merged:
        what = "nothing left to merge"
    else:
        what = f"{len(state.changed)} file(s) changed" + (
            f", {state.uncommitted} uncommitted" if state.uncommitted else ""
        )
    age = time.strftime("%Y-%m-%d %H:%M", time.localtime(made.created))
    return f"{made.name}\t{made.branch}\t{age}\t{what}\t{made.path}"


async def _clean(repo: Path, base: Path, yes: bool) -> int:
    gone = service.stale(repo, base)
    if not gone:
        print("agentls: no worktree to clean", file=sys.stderr)
        return 0
    names = ", ".join(w.name for w in gone)
    if not await _confirm(f"remove {len(gone)} worktree(s) with nothing left to merge: {names}", yes):
        return 1
    for made in gone:
        service.discard(made)
    print(f"agentls: removed {names}", file=sys.stderr)
    return 0


async def _confirm(what: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"agentls: not done without a terminal to ask: {what} (pass --yes)", file=sys.stderr)
        return False
    typed = await read_line(f"agentls: {what}? [y/N] ", out=sys.stderr)
    return typed.strip().lower() in ("y", "yes")
