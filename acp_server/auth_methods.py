"""The ``authMethods`` of the ``initialize`` answer, as JSON (standard library only: the early answer
in ``acp_server.handshake`` is built from them before the ACP library is imported).

- ``agentls-config``: agentls' own configuration (the user config, the project's ``agentls.json``,
  provider keys in the environment). ``authenticate`` with it re-reads the config and checks that the
  default model can be used (a known provider with a key), else says what is missing.
- ``agentls-auth``, a terminal method: the client runs ``agentls acp --auth`` in a terminal, which asks
  for a provider and its key and stores them like ``agentls auth``. Offered only to clients that
  declare ``clientCapabilities.auth.terminal``, as the protocol requires.
"""

from __future__ import annotations

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
    """Whether the client can run terminal authentication methods."""
    if not isinstance(client_capabilities, dict):
        return False
    auth = client_capabilities.get("auth")
    return isinstance(auth, dict) and auth.get("terminal") is True


def auth_methods(client_capabilities: Any) -> list[dict[str, Any]]:
    """The methods offered to a client with these capabilities (JSON, as sent)."""
    return [CONFIG, TERMINAL] if terminal_auth(client_capabilities) else [CONFIG]
