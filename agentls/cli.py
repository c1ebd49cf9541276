"""The `agentls` console script: the core's commands and every front end's, each module imported
only when its command runs (so `agentls run` and `agentls serve` pay for nothing else).

It sits above core/ and the front ends and only names their command modules: lsp_server/ and a
sibling front end (ACP) never import each other. A new front end adds ``"name": "its.module"``
(a module with ``register(subparsers)``) to ``COMMANDS``.
"""

from __future__ import annotations

import sys
import types

# httpx imports its own command-line client (click, rich, pygments: ~50 ms and 3 MiB) whenever those
# happen to be installed, and agentls never runs it. A None entry makes that import fail the way it
# does when they are absent, and httpx falls back to its stub.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: the documented import block
# httpcore imports h2 whenever it is installed (another package's extra pulls it in), building its
# HTTP/2 state machines: 56 M instructions, 3% of a plain run. agentls speaks HTTP/1.1 only (its
# client never sets http2=True), and without h2 httpcore keeps a stub that raises if asked for it.
sys.modules.setdefault("h2", None)  # type: ignore[arg-type]
# Before it builds its first model, pydantic looks for plugins (observability hooks that a program
# opts into) in the metadata of every installed package: importing importlib.metadata (with email,
# zipfile, csv…) and reading each dist-info folder cost 83 M instructions by themselves, 34 M (2%)
# net in a plain run, where httpx loads email anyway. agentls opts into none, so its pydantic gets
# a plugin loader that finds none, as with PYDANTIC_DISABLE_PLUGINS=__all__ but without that
# import. (Only this console script does it: pydantic used in-process, as in the tests, keeps its
# own loader.)
_no_plugins = types.ModuleType("pydantic.plugin._loader", "agentls: pydantic plugins are not loaded")
_no_plugins.get_plugins = lambda: ()  # type: ignore[attr-defined]  # the one name pydantic imports
sys.modules.setdefault("pydantic.plugin._loader", _no_plugins)

from agentls.boot import CORE_COMMANDS, exit_now, run  # noqa: E402
from lsp_server.cli import HOST_COMMANDS as LSP_COMMANDS  # noqa: E402

COMMANDS: dict[str, str] = {**CORE_COMMANDS, **LSP_COMMANDS, "acp": "acp_server.acp_cmd"}


def main() -> None:
    """Entry point of `agentls`."""
    exit_now(run(commands=COMMANDS, fresh_process=True))
