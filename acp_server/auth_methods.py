"""The ``authMethods`` of the ``initialize`` answer, as JSON (standard library only: the early answer
in ``acp_server.handshake`` is built from them before the ACP library is imported).

- ``agentls-config``: agentls' own configuration (the user config, the project's ``agentls.json``,
  provider keys in the environment). ``authenticate`` with it re-reads the config and checks that the
  default model can be used (a known provider with a key), else says what is missing.
- ``agentls-auth``, a terminal method: the client runs ``agentls acp --auth`` in a terminal, which asks
  for a provider and its key and stores them like ``agentls auth``. Offered to clients that
  declare ``clientCapabilities.auth.terminal``, as the protocol requires, and to those that flag
  ``clientCapabilities._meta["terminal-auth"]`` (Zed's convention from before the protocol had
  terminal methods, which the ACP registry's check uses). Those get the method as a plain one whose
  ``_meta["terminal-auth"]`` holds the whole command to run (``command``, ``args``, ``label``):
  this very agent's command line plus ``--auth``.
"""

from __future__ import annotations

import sys
from typing import Any

CONFIG_METHOD = "agentls-config"
TERMINAL_METHOD = "agentls-auth"
TERMINAL_ARGS = ["--auth"]  # appended to the client's agentls invocation (`agentls acp`)

CONFIG: dict[str, Any] = {
    "id": CONFIG_METHOD,
    "name": "agentls configuration",
    "description": "Use the model and provider key from agentls.json or the environment",
}
TERMINAL: dict[str, Any] = {
    "id": TERMINAL_METHOD,
    "name": "Enter an API key",
    "description": "Store a provider's API key in your agentls config (readable only by you)",
    "args": TERMINAL_ARGS,
    "type": "terminal",
}


def terminal_auth(client_capabilities: Any) -> bool:
    """Whether the client can run terminal authentication methods (the protocol's capability)."""
    if not isinstance(client_capabilities, dict):
        return False
    auth = client_capabilities.get("auth")
    return isinstance(auth, dict) and auth.get("terminal") is True


def meta_terminal_auth(client_capabilities: Any) -> bool:
    """Whether the client flags ``_meta["terminal-auth"]`` (it runs the command a method names)."""
    if not isinstance(client_capabilities, dict):
        return False
    meta = client_capabilities.get("_meta")
    return isinstance(meta, dict) and meta.get("terminal-auth") is True


def terminal_command() -> dict[str, Any]:
    """The command line of ``agentls acp --auth`` as this process was started (its interpreter and
    arguments, so ``python -m acp_server …`` and the ``agentls`` script both work)."""
    return {"command": sys.executable, "args": [*sys.orig_argv[1:], *TERMINAL_ARGS], "label": "agentls login"}


def auth_methods(client_capabilities: Any) -> list[dict[str, Any]]:
    """The methods offered to a client with these capabilities (JSON, as sent)."""
    typed = terminal_auth(client_capabilities)
    flagged = meta_terminal_auth(client_capabilities)
    if not typed and not flagged:
        return [CONFIG]
    terminal = dict(TERMINAL) if typed else {k: v for k, v in TERMINAL.items() if k not in ("type", "args")}
    if flagged:
        terminal["_meta"] = {"terminal-auth": terminal_command()}
    return [CONFIG, terminal]
