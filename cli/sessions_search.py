"""`agentls sessions search QUERY`: this project's sessions whose title or text matches, newest first."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from cli.stored import open_store, stamp
from core.config.paths import worktree_of
from core.message.search import SearchFilter, SearchHit
from core.message.title_text import clean_title

_RELATIVE = re.compile(r"^(\d+)([mhdw])$")
_UNIT_MS = {"m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}


def add_search(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `sessions search` to the `sessions` command group."""
    search = actions.add_parser(
        "search",
        help="find sessions whose title or messages match a query",
        description="QUERY is words, all of which must match, as typed (foo-bar, AND, ( are text "
        'to find); "a phrase" in double quotes, prefix*. A QUERY starting fts: is FTS5 query syntax: '
        "fts:'parser OR lexer', NOT, NEAR, (groups).",
    )
    search.add_argument("query", metavar="QUERY", help="what to look for")
    search.add_argument(
        "--since", type=when, help="updated at or after: 2026-11-01, 2026-11-01T09:30, 7d, 12h"
    )
    search.add_argument("--until", type=when, help="updated before (same forms as --since)")
    search.add_argument("--agent", help="only sessions where the user prompted this agent (build, plan, …)")
    search.add_argument(
        "-n", "--limit", type=int, default=20, help="how many sessions (default 20, at most 200)"
    )
    search.add_argument("--json", action="store_true", help="print the hits as a JSON array")
    search.set_defaults(func=run_search)


def when(text: str) -> int:
    """A point in time as epoch ms: an ISO date or date-time (local time unless it says otherwise),
    or a span back from now (``30m``, ``12h``, ``7d``, ``2w``)."""
    relative = _RELATIVE.match(text.strip())
    if relative:
        return int(time.time() * 1000) - int(relative[1]) * _UNIT_MS[relative[2]]
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date: use 2026-11-01, 2026-11-01T09:30, "
            "or a span back from now like 7d or 12h"
        ) from None
    return int(moment.timestamp() * 1000)  # naive: local time, as `sessions list` prints


async def run_search(args: argparse.Namespace) -> int:
    """Print the sessions that match."""
    directory = (args.directory or Path.cwd()).resolve()
    store = await open_store()
    try:
        project = await store.ensure_project(worktree_of(directory))
        where = SearchFilter(project_id=project.id, since=args.since, until=args.until, agent=args.agent)
        hits = await store.search_sessions(args.query, where, limit=args.limit)
    finally:
        await store.close()
    if args.json:
        print(json.dumps([hit_json(h) for h in hits], indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print(f"no session in {project.worktree} matches {args.query!r}", file=sys.stderr)
    for hit in hits:
        s = hit.session
        print(f"{s.id}  {stamp(s.time.updated)}  {clean_title(s.title)}")
        print(f"    {' '.join(hit.snippet.split())}")
    return 0


def hit_json(hit: SearchHit) -> dict[str, Any]:
    """A hit as JSON (the same fields as the `agent/session/search` answer)."""
    return {
        "session": hit.session.model_dump(mode="json", exclude_none=True),
        "snippet": hit.snippet,
        "highlights": [list(r) for r in hit.highlights],
        "messageID": hit.message_id,
        "partID": hit.part_id,
    }
