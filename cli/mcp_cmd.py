"""`agentls mcp list|enable|disable|login|logout`: the project's MCP servers — whether each runs, what
it offers, why one failed, whether a remote one is logged in — switching one on or off in the user's
config (every project that names it), and logging in to a remote one through the browser (OAuth)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path

from agentls.boot import UsageError
from cli.trust_prompt import settle_trust
from core.config.keys import set_mcp_enabled
from core.config.loader import load_config
from core.open import open_agent


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls mcp`."""
    parser = sub.add_parser("mcp", help="list the MCP servers, or enable or disable one", description=__doc__)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="each server: running, failed (and why) or disabled")
    listing.add_argument("--json", action="store_true", help="one JSON array")
    listing.add_argument("--trust", action="store_true", help="trust this project for this run")
    listing.set_defaults(func=run_list)
    for action, text in (("enable", "start it from now on"), ("disable", "never start it")):
        toggle = actions.add_parser(action, help=f"{text} (written to your user config)")
        toggle.add_argument("name", help="the server's name (its key under mcp)")
        toggle.set_defaults(func=run_toggle, enabled=action == "enable")
    login = actions.add_parser("login", help="log in to a remote server through your browser (OAuth)")
    login.add_argument("name", help="the server's name (its key under mcp)")
    login.add_argument("--no-browser", action="store_true", help="only print the address to open")
    login.add_argument(
        "--timeout", type=float, default=300.0, help="seconds to wait for the browser (default 300)"
    )
    login.add_argument("--trust", action="store_true", help="trust this project for this run")
    login.set_defaults(func=run_login)
    logout = actions.add_parser("logout", help="delete a remote server's stored tokens")
    logout.add_argument("name", help="the server's name (its key under mcp)")
    logout.add_argument("--trust", action="store_true", help="trust this project for this run")
    logout.set_defaults(func=run_logout)
    for p in (listing, *(actions.choices[a] for a in ("enable", "disable", "login", "logout"))):
        p.add_argument("-C", dest="directory", type=Path, default=Path("."), help="the project folder")


async def run_list(args: argparse.Namespace) -> int:
    """Start the servers as a session would, print how each fared, stop them."""
    directory = args.directory.resolve()
    await settle_trust(directory, trust_flag=args.trust, terminal=sys.stdin.isatty())
    app = await open_agent(directory)
    try:
        servers = await app.mcp_servers()
    finally:
        await app.close()
    if args.json:
        print(json.dumps([asdict(s) for s in servers], indent=2))
        return 0
    if not servers:
        print("no MCP servers are configured for this project (the `mcp` key of agentls.json)")
        return 0
    width = max(len(s.name) for s in servers)
    for s in servers:
        line = f"{s.name:<{width}}  {s.type:<6}  {s.status:<8}"
        if s.status == "running":
            line += f"  {s.tools} tools, {s.resources} resources, {s.prompts} prompts"
        elif s.error:
            line += f"  {s.error}"
        if s.auth is not None and s.status != "needs-login":
            line += f"  ({_AUTH_WORDS[s.auth]})"
        print(line)
    return 1 if any(s.status in ("failed", "needs-login") for s in servers) else 0


_AUTH_WORDS = {"logged-in": "logged in", "needs-login": "needs login", "not-needed": "no login needed"}


async def run_login(args: argparse.Namespace) -> int:
    """Send the browser to the server's authorization page and wait for the redirect back."""
    import webbrowser

    from core.mcp_login import login, token_file

    async def open_url(url: str) -> None:
        print(f"To log in to {args.name}, open this address in your browser:\n  {url}", flush=True)
        if not args.no_browser and not await asyncio.to_thread(webbrowser.open, url):
            print("agentls: no browser could be opened here: open the address yourself", file=sys.stderr)
        print(f"waiting for the browser (up to {args.timeout:g} s)…", file=sys.stderr, flush=True)

    directory = args.directory.resolve()
    # An untrusted project's own servers are not in its config: none of them is logged in to.
    await settle_trust(directory, trust_flag=args.trust, terminal=sys.stdin.isatty())
    outcome = await login(directory, args.name, open_url, args.timeout)
    if outcome == "not-needed":
        print(f"{args.name} needs no login: it answered without one; nothing was stored")
    else:
        print(
            f"{args.name}: logged in (tokens in {token_file()}); an agent already running takes them "
            "when the server restarts"
        )
    return 0


async def run_logout(args: argparse.Namespace) -> int:
    """Delete the server's stored tokens."""
    from core.mcp_login import logout

    directory = args.directory.resolve()
    await settle_trust(directory, trust_flag=args.trust, terminal=sys.stdin.isatty())
    if await logout(directory, args.name):
        print(f"{args.name}: logged out (its tokens are deleted)")
    else:
        print(f"{args.name}: was not logged in; nothing to delete")
    return 0


async def run_toggle(args: argparse.Namespace) -> int:
    """Write ``mcp.<name>.enabled`` in the user's config, and check that it is what holds here."""
    directory = args.directory.resolve()
    resolved = await asyncio.to_thread(load_config, directory)
    if args.name not in resolved.config.mcp:
        known = ", ".join(sorted(resolved.config.mcp)) or "none"
        raise UsageError(f"no MCP server {args.name!r} is configured here (configured: {known})")
    path = await asyncio.to_thread(set_mcp_enabled, args.name, args.enabled)
    after = await asyncio.to_thread(load_config, directory)
    word = "enabled" if args.enabled else "disabled"
    if after.config.mcp[args.name].enabled != args.enabled:
        source = after.source_of(("mcp", args.name, "enabled"))
        print(
            f"agentls: wrote it to {path}, but {source} sets mcp.{args.name}.enabled, which wins",
            file=sys.stderr,
        )
        return 1
    print(f"{args.name}: {word} (in {path}); an agent already running takes it when it restarts")
    return 0
