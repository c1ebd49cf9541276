"""The `agentls` console script: the core's commands plus `serve` and `demo` from this package."""

from __future__ import annotations

import importlib
import sys

from core.cli.main import Registrar, run

# Modules of this package that add commands (each with register(subparsers)).
HOST_COMMAND_MODULES: tuple[str, ...] = ("lsp_server.serve_cmd", "lsp_server.demo_cmd")


def _registrars() -> list[Registrar]:
    found: list[Registrar] = []
    for name in HOST_COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        found.append(module.register)
    return found


def main() -> None:
    """Entry point of `agentls`."""
    sys.exit(run(extra=_registrars()))


if __name__ == "__main__":
    main()
