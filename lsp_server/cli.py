"""The commands this package adds to `agentls` (``serve``, ``demo``), and ``python -m lsp_server.cli``:
the core's commands plus these, without any other front end's."""

from __future__ import annotations

from agentls.boot import CORE_COMMANDS, exit_now, run

# Command → the module of this package that registers it (imported only when that command runs).
HOST_COMMANDS: dict[str, str] = {"serve": "lsp_server.serve_cmd", "demo": "lsp_server.demo_cmd"}


def main() -> None:
    """``python -m lsp_server.cli COMMAND ...``."""
    exit_now(run(commands={**CORE_COMMANDS, **HOST_COMMANDS}, fresh_process=True))


if __name__ == "__main__":
    main()
