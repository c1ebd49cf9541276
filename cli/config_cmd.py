"""`agentls config`: print the resolved config, optionally with the layer each value came from."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentls.boot import UsageError
from core.config.loader import ResolvedConfig, load_config
from core.config.merge import KeyPath, format_path
from core.trust import distrust

# Values under keys whose name contains one of these are masked unless --show-secrets is given, so the
# output can be pasted into a bug report.
_SECRET_WORDS = ("key", "token", "secret", "password", "authorization")
MASK = "********"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `config` command."""
    parser = subparsers.add_parser("config", help="print the resolved config", description=__doc__)
    parser.add_argument(
        "-C", "--directory", type=Path, default=None, help="working directory (default: the current one)"
    )
    parser.add_argument("--sources", action="store_true", help="list each value with the layer that set it")
    parser.add_argument("--show-secrets", action="store_true", help="print keys and tokens unmasked")
    parser.add_argument(
        "--untrusted",
        action="store_true",
        help="resolve it as a server started for an untrusted project does: without the project's own files",
    )
    parser.set_defaults(func=run)


def _mask(node: Any, key: str = "") -> Any:
    if isinstance(node, dict):
        return {k: _mask(v, str(k)) for k, v in node.items()}
    if isinstance(node, list):
        return [_mask(item, key) for item in node]
    if isinstance(node, str) and node and any(word in key.lower() for word in _SECRET_WORDS):
        return MASK
    return node


def _leaves(node: Any, path: KeyPath) -> list[tuple[KeyPath, Any]]:
    if isinstance(node, dict) and node:
        return [leaf for key, value in node.items() for leaf in _leaves(value, (*path, str(key)))]
    if path == ("instructions",) and isinstance(node, list) and node:
        return [((*path, f"[{i}]"), item) for i, item in enumerate(node)]
    return [(path, node)]


def render_sources(resolved: ResolvedConfig, data: dict[str, Any]) -> str:
    """One line per leaf value: ``key.path = json-value  (layer)``."""
    rows = [
        (format_path(path), json.dumps(value), resolved.source_of(path)) for path, value in _leaves(data, ())
    ]
    width = max((len(path) + len(value) for path, value, _ in rows), default=0) + 3
    return "\n".join(f"{f'{path} = {value}':<{width}}  ({source})" for path, value, source in rows)


def run(args: argparse.Namespace) -> int:
    """Resolve the config for the directory and print it; ConfigError reaches main as exit 1."""
    directory = (args.directory or Path.cwd()).resolve()
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory")
    if args.untrusted:
        distrust(directory)
    resolved = load_config(directory)
    for warning in resolved.warnings:
        print(f"agentls: warning: {warning}", file=sys.stderr)
    data = resolved.config.model_dump(mode="json")
    if not args.show_secrets:
        data = _mask(data)
    if args.sources:
        print(render_sources(resolved, data))
    else:
        print(json.dumps(data, indent=2))
    return 0
