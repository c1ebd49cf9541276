"""`agentls sessions watch ID`: follow a session's running turn live in the terminal, from the
host that runs it (whichever front end started the turn)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from cli.host_lost import restart_host
from cli.render import Transcript
from cli.stored import open_store
from cli.stored_lines import render_message
from core.bus import Subscription
from core.config.paths import data_dir
from core.events import PartUpdated, SessionIdle
from core.message.models import MessageWithParts
from core.remote.agent import RemoteAgent
from core.remote.attach import NoHost, attach


def add_watch(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `sessions watch`."""
    watch = actions.add_parser("watch", help="follow a session's running turn live (from the agent host)")
    watch.add_argument("id", metavar="ID", help="session id (ses_…)")
    watch.set_defaults(func=run_watch)


async def run_watch(args: argparse.Namespace) -> int:
    """Print the session so far, then its running turn as it streams; 0 when the turn ends."""
    directory = await _session_directory(args.id)
    client = f"agentls sessions watch (pid {os.getpid()})"
    try:
        agent = await attach(directory, data_dir=data_dir(), client=client, mode="attach")
    except NoHost:
        print(
            f"agentls: no agent host runs, so no turn of {args.id} runs where it could be followed "
            f"(`agentls sessions show {args.id}` prints it)",
            file=sys.stderr,
        )
        return 1
    try:
        with agent.subscribe(session_id=args.id) as events:
            await agent.show([args.id])  # the host answers after telling who else shows it
            if others := agent.watchers(args.id):
                print(f"agentls: {args.id} is also open in {', '.join(others)}", file=sys.stderr)
            history = await agent.messages(args.id)
            running = agent.running(args.id)
            live = history[-1] if running and history and history[-1].info.role == "assistant" else None
            for message in history:
                if message is not live:
                    print("\n".join(render_message(message)))
            if not running:
                print(f"agentls: no turn of {args.id} is running", file=sys.stderr)
                return 0
            return await _follow(agent, args.id, events, live)
    finally:
        await agent.close()


async def _follow(
    agent: RemoteAgent, session_id: str, events: Subscription, live: MessageWithParts | None
) -> int:
    transcript = Transcript(session_id)
    if live is not None:
        for part in live.parts:  # what streamed before: the live deltas go on from there
            transcript.handle(PartUpdated(part=part))
    lost = asyncio.ensure_future(agent.lost.wait())
    try:
        while True:
            next_event = asyncio.ensure_future(events.get())
            await asyncio.wait({next_event, lost}, return_when=asyncio.FIRST_COMPLETED)
            if not next_event.done():
                next_event.cancel()
                transcript.finish()
                return await _host_lost(agent, session_id)
            event = next_event.result()
            transcript.handle(event)
            if isinstance(event, SessionIdle):
                transcript.finish()
                return 0
    finally:
        lost.cancel()


async def _host_lost(agent: RemoteAgent, session_id: str) -> int:
    """Say once that the host went away, start a new one and show what the session kept."""
    print(f"agentls: the agent host stopped ({agent.lost_reason}): its turn ended with it", file=sys.stderr)
    await restart_host(agent.directory, session_id, "agentls sessions watch")
    return 1


async def _session_directory(session_id: str) -> Path:
    """The project folder a session belongs to (NotFoundError when there is no such session)."""
    store = await open_store()
    try:
        return Path((await store.get_session(session_id)).directory)
    finally:
        await store.close()
