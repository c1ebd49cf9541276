"""`agentls doctor`: what protects the commands the agent runs in a project, and why.

It resolves the project's config as `agentls run` would, checks the sandbox backend the same way
(bubblewrap on Linux, Seatbelt on macOS) and prints the mode, the backend or the reason there is
none, the writable folders, the network, the variables kept from commands and the MCP servers'
confinement. Exit status 1 when the config asks for a sandbox this machine cannot set up (commands
then run under the permission rules alone).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agentls.boot import UsageError
from core.config.loader import load_config
from core.config.paths import worktree_of
from core.config.schema import Config, McpLocal
from core.sandbox.env import holds_secret
from core.sandbox.policy import SandboxPolicy, build_policy
from core.sandbox.sandbox import Protection, Sandbox, private_tmp
from core.sandbox.settings import sandbox_settings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `doctor` command."""
    parser = subparsers.add_parser(
        "doctor", help="show what protects the commands the agent runs", description=__doc__
    )
    parser.add_argument(
        "-C", "--directory", type=Path, default=None, help="project directory (default: the current one)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the protection report; 1 when a sandbox was asked for and none can be set up."""
    directory = (args.directory or Path.cwd()).resolve()
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory")
    worktree = worktree_of(directory)
    resolved = load_config(directory, worktree)
    config = resolved.config
    sandbox_config, confined_mcp, ignored = sandbox_settings(resolved)
    for warning in ignored:
        print(f"agentls: warning: {warning}", file=sys.stderr)
    sandbox = Sandbox(sandbox_config, (worktree,), lambda message, session: None, confined_mcp=confined_mcp)
    protection = sandbox.protection()
    print(f"agentls doctor: {worktree}")
    print(f"commands: {protection.describe()}")
    if protection.active:
        policy = build_policy(sandbox_config, (worktree,), private_tmp())
        print(_policy_lines(policy))
    elif protection.mode != "full":
        print(f"  {_fallback_hint(protection)}")
    print(_environment_line(sandbox_config.env.pass_, protection))
    mcp = _mcp_lines(config, protection, confined_mcp)
    if mcp:
        print("MCP servers:\n" + mcp)
    return 0 if protection.active or protection.mode == "full" else 1


def _policy_lines(policy: SandboxPolicy) -> str:
    writable = [_shown(p, policy) for p in policy.writable]
    lines = [f"  writable: {', '.join(writable)}"]
    if policy.read_only:
        lines.append(f"  read-only inside them: {', '.join(str(p) for p in policy.read_only)}")
    if policy.hidden:
        hidden = ", ".join(str(p) for p in policy.hidden)
        lines.append(f"  hidden (shown empty; sandbox.readable shows one): {hidden}")
    if policy.network:
        network = 'on (sandbox.network.allow is ["*"])'
    else:
        listed = ", ".join(policy.hosts) or "none"
        network = f"off; HTTP(S) through the proxy: hosts on the allow-list pass ({listed}), others ask"
    lines.append(f"  network: {network}")
    return "\n".join(lines)


def _shown(path: Path, policy: SandboxPolicy) -> str:
    return "$TMPDIR (private to each agentls process)" if path == policy.tmpdir else str(path)


def _fallback_hint(protection: Protection) -> str:
    if sys.platform.startswith("linux"):
        return (
            "commands run under the permission rules alone. Install bubblewrap (apt install bubblewrap, "
            "dnf install bubblewrap) and allow unprivileged user namespaces "
            "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ an AppArmor profile for bwrap)."
        )
    return "commands run under the permission rules alone."


def _environment_line(passed: list[str], protection: Protection) -> str:
    if not protection.active:
        return "environment: commands get agentls's own (minus the provider keys agentls resolved)"
    dropped = sorted(name for name in os.environ if holds_secret(name) and name not in passed)
    if not dropped:
        return "environment: no variable of yours looks like a secret"
    return f"environment: kept from commands (set sandbox.env.pass to keep one): {', '.join(dropped)}"


def _mcp_lines(config: Config, protection: Protection, confined: frozenset[str]) -> str:
    lines = []
    for name, server in config.mcp.items():
        if not isinstance(server, McpLocal) or not server.enabled:
            continue
        if (server.sandbox or name in confined) and protection.active:
            how = "sandboxed, network on"
        elif not server.sandbox:
            how = 'unsandboxed ("sandbox": false)'
        else:
            how = "unsandboxed (no sandbox here)" if protection.mode != "full" else "unsandboxed (full mode)"
        lines.append(f"  {name}: {how}")
    return "\n".join(lines)
