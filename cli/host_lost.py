"""What a terminal front end does when its agent host dies mid-turn: start a new host, attach to
it and say what the session kept (the store has every part committed before the host died)."""

from __future__ import annotations

import sys
from pathlib import Path

from core.config.paths import data_dir
from core.remote.attach import AttachError, attach


async def restart_host(directory: Path, session_id: str, client: str) -> None:
    """Start a new host for ``directory`` and report how many messages ``session_id`` keeps."""
    try:
        again = await attach(directory, data_dir=data_dir(), client=client, mode="auto")
    except AttachError as exc:
        print(f"agentls: the host could not be restarted: {exc}", file=sys.stderr)
        return
    try:
        kept = await again.messages(session_id)
        show = f"agentls sessions show {session_id}"
        print(f"agentls: host restarted; the session keeps {len(kept)} message(s) ({show})", file=sys.stderr)
    finally:
        await again.close()
