"""`agentls sessions list | search QUERY | show ID | export ID | delete ID | watch ID`: this
project's stored sessions (watch: a running turn, live, from the agent host)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli.sessions_search import add_search
from cli.sessions_watch import add_watch
from cli.stored import open_store, stamp
from cli.stored_lines import render_message
from core.config.paths import worktree_of
from core.message.markdown import session_markdown
from core.message.models import (
    MessageWithParts,
    Session,
)
from core.message.title_text import clean_title
from core.storage import InvalidRow


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `sessions` command group."""
    parser = subparsers.add_parser("sessions", help="list, search, show, export or delete stored sessions")
    parser.add_argument(
        "-C", "--directory", type=Path, default=None, help="working directory (default: the current one)"
    )
    parser.set_defaults(func=lambda _args: _help(parser))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    listing = actions.add_parser("list", help="this project's sessions, last updated first")
    listing.add_argument("-n", "--limit", type=int, default=50, help="how many sessions (default 50)")
    listing.add_argument("--json", action="store_true", help="print the sessions as a JSON array")
    listing.set_defaults(func=run_list)

    add_search(actions)
    add_watch(actions)

    for name, func, text in (
        ("show", run_show, "print a session's transcript"),
        ("export", run_export, "print a session with every message and part (JSON, or Markdown)"),
        ("delete", run_delete, "delete a session, its messages and its child sessions"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("id", metavar="ID", help="session id (ses_…)")
        if name == "export":
            action.add_argument(
                "--format",
                choices=("json", "md"),
                default="json",
                help="json: every field (default); md: Markdown to read or share, tool calls folded",
            )
        action.set_defaults(func=func)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


class _Problems:
    """Collects invalid rows: shown as warnings, and they make the command fail at the end."""

    def __init__(self) -> None:
        self.rows: list[InvalidRow] = []

    def __call__(self, row: InvalidRow) -> None:
        self.rows.append(row)
        print(f"agentls: warning: {row} (skipped)", file=sys.stderr)

    def status(self) -> int:
        return 1 if self.rows else 0


async def run_list(args: argparse.Namespace) -> int:
    """Print this project's sessions."""
    directory = (args.directory or Path.cwd()).resolve()
    store = await open_store()
    try:
        project = await store.ensure_project(worktree_of(directory))
        found = await store.list_sessions(project.id, limit=args.limit)
    finally:
        await store.close()
    if args.json:
        print(json.dumps([s.model_dump(mode="json", exclude_none=True) for s in found], indent=2))
        return 0
    if not found:
        print(f"no sessions in {project.worktree}", file=sys.stderr)
    for s in found:
        child = f"  (child of {s.parentID})" if s.parentID else ""
        print(f"{s.id}  {stamp(s.time.updated)}  {clean_title(s.title)}{child}")
    return 0


async def _load(session_id: str, problems: _Problems) -> tuple[Session, list[MessageWithParts]]:
    store = await open_store()
    try:
        session = await store.get_session(session_id)
        return session, await store.list_messages(session_id, on_invalid=problems)
    finally:
        await store.close()


async def run_show(args: argparse.Namespace) -> int:
    """Print a session as a readable transcript."""
    problems = _Problems()
    session, messages = await _load(args.id, problems)
    title = clean_title(session.title)
    print(f"{title}\n{session.id}  {session.directory}  updated {stamp(session.time.updated)}")
    for message in messages:
        print()
        print("\n".join(render_message(message)))
    return problems.status()


async def run_export(args: argparse.Namespace) -> int:
    """Print a session with every message and part as JSON, or as Markdown."""
    problems = _Problems()
    session, messages = await _load(args.id, problems)
    if args.format == "md":
        sys.stdout.write(session_markdown(session, messages))
        return problems.status()
    document: dict[str, Any] = {
        "info": session.model_dump(mode="json", exclude_none=True),
        "messages": [m.model_dump(mode="json", exclude_none=True) for m in messages],
    }
    print(json.dumps(document, indent=2, ensure_ascii=False))
    return problems.status()


async def run_delete(args: argparse.Namespace) -> int:
    """Delete a session and everything below it."""
    store = await open_store()
    try:
        deleted = await store.delete_session(args.id)
    finally:
        await store.close()
    children = len(deleted) - 1
    print(f"deleted {args.id}" + (f" and {children} child session(s)" if children > 0 else ""))
    return 0
