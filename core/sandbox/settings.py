"""The ``sandbox`` config in effect: a project's own config file may make the sandbox stricter,
never looser.

A repository is code someone else wrote. Trusting it (so that its commands, agents and MCP servers
load) should not also let its ``agentls.json`` switch the sandbox off, open the network, make
folders outside it (or its own ``.git``, whose hooks run) writable, or hand commands the user's
tokens. So a value a project layer set is kept only when it tightens: ``mode`` ``read-only``
(or ``workspace-write`` over a looser one); its ``writable``, ``network`` and ``env`` are dropped,
and so is ``"sandbox": false`` on one of its MCP servers, with a warning that says where such a
setting belongs (the user's config, the editor's settings,
``AGENTLS_CONFIG_CONTENT``).
"""

from __future__ import annotations

import json

from core.config.loader import ResolvedConfig
from core.config.schema import SandboxConfig, SandboxEnv, SandboxMode, SandboxNetwork

PROJECT_LAYER = "project "  # how the loader names a project's files: "project /path/agentls.json"
_STRICTNESS: dict[SandboxMode, int] = {"full": 0, "workspace-write": 1, "read-only": 2}


def sandbox_settings(resolved: ResolvedConfig) -> tuple[SandboxConfig, frozenset[str], list[str]]:
    """The sandbox config to enforce, the MCP servers confined although their config says
    ``"sandbox": false`` (a project's), and a warning per project setting that was not applied."""
    config = resolved.config.sandbox
    warnings: list[str] = []

    def from_project(*path: str) -> str | None:
        source = resolved.source_of(("sandbox", *path))
        return source.removeprefix(PROJECT_LAYER) if source.startswith(PROJECT_LAYER) else None

    mode = config.mode
    where = from_project("mode")
    default_mode = SandboxConfig().mode
    if where is not None and _STRICTNESS[mode] < _STRICTNESS[default_mode]:
        warnings.append(_ignored(f'"mode": "{mode}"', where))
        mode = default_mode
    writable, network, env = config.writable, config.network, config.env
    if (where := from_project("writable")) is not None and writable:
        warnings.append(_ignored(f'"writable": {json.dumps(writable)}', where))
        writable = []
    readable = config.readable
    if (where := from_project("readable")) is not None and readable:
        warnings.append(_ignored(f'"readable": {json.dumps(readable)}', where))
        readable = []
    if (where := from_project("network", "allow")) is not None and network.allow:
        warnings.append(_ignored('"network": {"allow": ["*"]}', where))
        network = SandboxNetwork()
    if (where := from_project("env", "pass")) is not None and env.pass_:
        warnings.append(_ignored(f'"env": {{"pass": {json.dumps(env.pass_)}}}', where))
        env = SandboxEnv()
    effective = SandboxConfig(mode=mode, writable=writable, readable=readable, network=network, env=env)
    confined_mcp: set[str] = set()
    for name, server in resolved.config.mcp.items():
        source = resolved.source_of(("mcp", name, "sandbox"))
        if getattr(server, "sandbox", True) is False and source.startswith(PROJECT_LAYER):
            confined_mcp.add(name)
            warnings.append(
                _ignored(f'"mcp": {{"{name}": {{"sandbox": false}}}}', source.removeprefix(PROJECT_LAYER))
            )
    return effective, frozenset(confined_mcp), warnings


def _ignored(setting: str, where: str) -> str:
    return (
        f"{where}: the sandbox setting {setting} is not applied: a project's own config can only "
        "make the sandbox stricter. Put it in your user config (~/.config/agentls/agentls.json) or "
        "your editor's agentls settings if you want it for this project."
    )
