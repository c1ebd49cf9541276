"""The `agentls` console script: the core's commands and every front end's, each module imported
only when its command runs (so `agentls run` and `agentls serve` pay for nothing else).

It sits above core/ and the front ends and only names their command modules: lsp_server/ and a
sibling front end (ACP) never import each other. A new front end adds ``"name": "its.module"``
(a module with ``register(subparsers)``) to ``COMMANDS``.
"""

from __future__ import annotations

from agentls.boot import CORE_COMMANDS, exit_now, run
from lsp_server.cli import HOST_COMMANDS as LSP_COMMANDS

COMMANDS: dict[str, str] = {**CORE_COMMANDS, **LSP_COMMANDS, "acp": "acp_server.acp_cmd"}


def main() -> None:
    """Entry point of `agentls`."""
    exit_now(run(commands=COMMANDS, fresh_process=True))
