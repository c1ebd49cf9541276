"""``agentls auth``: give agentls a provider's API key, or name the environment variable that holds it.

The key is stored in the user's config file with owner-only permissions (``core.config.keys``).
Run in a terminal it asks for what is missing (the provider from a list, the key without echo);
with a pipe it reads the provider (unless given) and then the key, a line each, from stdin. ACP
clients run the same dialog as their "terminal" authentication method (``agentls acp --auth``).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import TextIO

from agentls.boot import UsageError
from core.config.keys import StoredKey, store_key
from core.llm.catalog import KEY_ENV


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``auth`` command."""
    parser = subparsers.add_parser(
        "auth", help="store a provider's API key (or the variable holding it) in your config"
    )
    parser.add_argument("provider", nargs="?", help=f"provider id, e.g. {', '.join(list(KEY_ENV)[:4])}")
    parser.add_argument(
        "--env", metavar="NAME", help="read the key from this environment variable instead of storing it"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Store the key (or variable name) and say where."""
    stored = dialog(args.provider, args.env, sys.stdin, sys.stderr)
    where = f"${stored.env}" if stored.env else "the key"
    sys.stderr.write(f"agentls will use {where} for {stored.provider}: saved in {stored.path} (mode 600)\n")
    if stored.env and not os.environ.get(stored.env):
        sys.stderr.write(f"note: {stored.env} is not set in this shell; set it where agentls runs\n")
    return 0


def dialog(provider: str | None, env: str | None, stdin: TextIO, out: TextIO) -> StoredKey:
    """Ask for what is missing (on a terminal), then store it."""
    interactive = stdin.isatty()
    if provider is None:
        # On a pipe: the provider on the first line, the key on the next (what a user would type).
        provider = _pick_provider(stdin, out) if interactive else stdin.readline().strip()
        if not provider:
            raise UsageError("no provider given: agentls auth PROVIDER (the key is then read from stdin)")
    if env is not None:
        return store_key(provider, env=env)
    known = KEY_ENV.get(provider)
    if interactive:
        hint = f" (empty: read it from ${known})" if known else ""
        key = getpass.getpass(f"API key for {provider}{hint}: ", stream=out)
    else:
        key = stdin.readline()
    if not key.strip() and interactive and known:
        return store_key(provider, env=known)
    if not key.strip():
        raise UsageError(f"no key was given for {provider}; nothing was written")
    return store_key(provider, key=key)


def _pick_provider(stdin: TextIO, out: TextIO) -> str:
    names = list(KEY_ENV)
    for i, name in enumerate(names, 1):
        out.write(f"{i:2}. {name}\n")
    out.write("Provider (number or id): ")
    out.flush()
    answer = stdin.readline().strip()
    if answer.isdigit() and 1 <= int(answer) <= len(names):
        return names[int(answer) - 1]
    return answer
