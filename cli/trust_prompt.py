"""`agentls run` and a project it has not been told to trust: ask on the terminal, or say how to.

On a terminal the question is asked before the agent opens (nothing of the project's runs before
the answer); without one the project is not trusted, and stderr says so once, with the command
that trusts it. ``--trust`` trusts it for this run only (``agentls trust add`` remembers it).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cli.terminal_input import read_line
from core.project_trust import answer, question_for

_YES = {"t", "trust", "y", "yes"}


async def settle_trust(directory: Path, *, trust_flag: bool, terminal: bool) -> None:
    """Ask (or decide) whether the project at ``directory`` is trusted, before its agent opens."""
    question = await asyncio.to_thread(question_for, directory)
    if question is None or trust_flag:
        return
    if not terminal:
        answer(question, trusted=False)
        print(question.untrusted_note() + " (or pass --trust for this run)", file=sys.stderr)
        return
    print(f"agentls: {question.text()}", file=sys.stderr)
    typed = await read_line("  trust it? [t]rust / [n]ot now: ", out=sys.stderr)
    trusted = typed.strip().lower() in _YES
    warning = answer(question, trusted=trusted)
    if warning:
        print(warning, file=sys.stderr)
    elif not trusted:
        print("agentls: not trusted this time: only your own config is used", file=sys.stderr)
