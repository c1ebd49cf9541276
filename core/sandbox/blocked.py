"""Recognise, in a confined command's output, what the sandbox stopped, and tell the model how to
get it allowed (so that it asks the user instead of trying the same thing another way)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from core.record import record
from core.sandbox.policy import SandboxPolicy
from core.sandbox.proxy import REFUSED

_READ_ONLY = "Read-only file system"
# Where tools put the path in an EROFS message: 'quoted' (rm, touch, Python), or "path: Read-only…" (shells).
_PATHS = (
    re.compile(r"'([^'\n]+)'"),
    re.compile(r'"([^"\n]+)"'),
    re.compile(r"((?:/|\.|~)[^\s:'\"]*): " + _READ_ONLY),
)
_REFUSED_HOST = re.compile(REFUSED + r": ([^\s:]+) is not on")
_NETWORK = (
    "Network is unreachable",
    "Connection refused",
    "Couldn't connect to server",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo failed",
    "nodename nor servname provided",
)


@record
class Blocked:
    """What the sandbox blocked: ``what`` for the model, the note that says how to allow it."""

    what: str
    note: str


def find_blocked(policy: SandboxPolicy, output: str, cwd: Path) -> list[Blocked]:
    """What ``output`` says the sandbox refused: writes outside the writable paths, network access
    (a relative path in the output is named from ``cwd``, where the command ran)."""
    found: list[Blocked] = []
    written = _written_paths(output, cwd)
    if written is not None:
        where = ", ".join(written) if written else "a path outside the writable folders"
        found.append(Blocked(f"writing to {where}", _write_note(policy, where)))
    refused = sorted(set(_REFUSED_HOST.findall(output)))
    if refused:
        hosts = ", ".join(refused)
        found.append(Blocked(f"network access to {hosts}", _host_note(policy, hosts)))
    elif not policy.network and any(marker in output for marker in _NETWORK):
        found.append(Blocked("network access", _network_note(policy)))
    return found


def _written_paths(output: str, cwd: Path) -> list[str] | None:
    lines = [line for line in output.splitlines() if _READ_ONLY in line or "EROFS" in line]
    if not lines:
        return None
    paths: list[str] = []
    for line in lines:
        for pattern in _PATHS:
            match = pattern.search(line)
            if match is not None:
                path = os.path.normpath(cwd / os.path.expanduser(match.group(1)))
                if path not in paths:
                    paths.append(path)
                break
    return paths[:5]


def _write_note(policy: SandboxPolicy, where: str) -> str:
    if policy.mode == "read-only":
        scope = "in read-only mode only the temp dir ($TMPDIR) is writable"
    else:
        scope = (
            "only the project, the temp dir ($TMPDIR) and the tool caches are writable, and .git, "
            ".agentls and .env files stay read-only"
        )
    return (
        f"The sandbox ({policy.mode}) blocked writing to {where}: {scope}. Do not try to write it "
        'another way: if the command needs it, ask the user to add the folder to "sandbox": '
        '{"writable": [...]} in the project\'s agentls.json, or to run in full mode '
        '("sandbox": {"mode": "full"}).'
    )


def _host_note(policy: SandboxPolicy, hosts: str) -> str:
    return (
        f"The sandbox ({policy.mode}) blocked network access to {hosts}: the host is not on the "
        "allow-list and the user did not allow it. Do not try to reach it another way: ask the user "
        'to allow it when asked, or to add it to "sandbox": {"network": {"allow": [...]}} in their '
        "agentls config."
    )


def _network_note(policy: SandboxPolicy) -> str:
    return (
        f"The sandbox ({policy.mode}) blocked network access: commands run without a network "
        "(even 127.0.0.1 is the sandbox's own); HTTP and HTTPS go through the proxy in $HTTPS_PROXY, "
        "which asks the user for each new host. If the command needs more, ask the user to allow it "
        '("sandbox": {"network": {"allow": ["*"]}} in agentls.json) or to run in full mode.'
    )
