"""`agentls compact SESSION`: summarise a session now, the same path an automatic compaction takes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cli.trust_prompt import settle_trust
from core.message.models import TextPart
from core.open import open_agent


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls compact`."""
    parser = sub.add_parser("compact", help="summarise a session so its context shrinks")
    parser.add_argument("session", help="the session id")
    parser.add_argument("-C", dest="directory", default=".", help="the project folder")
    parser.set_defaults(func=compact)


async def compact(args: argparse.Namespace) -> int:
    """Run the compaction and print the summary."""
    await settle_trust(Path(args.directory), trust_flag=False, terminal=sys.stdin.isatty())
    app = await open_agent(Path(args.directory))
    try:
        summary = await app.compact(args.session)
    finally:
        await app.close()
    print("".join(p.text for p in summary.parts if isinstance(p, TextPart)))
    return 0
