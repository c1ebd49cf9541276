"""What ``scripts/gen_protocol`` writes, and the drift check ``./scripts/check`` runs.

Every output is a function of the Python source alone, so ``--check`` can tell whether a file was
edited by hand or the source changed without a regeneration.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.gen_protocol_lib import luacats, markdown, schema, typescript

COMMAND = "scripts/gen_protocol"

Writer = Callable[[dict[str, Any], str | None], str]


def _schema(document: dict[str, Any], _current: str | None) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _docs(document: dict[str, Any], current: str | None) -> str:
    if current is None:
        raise markdown.MarkerError("docs/protocol.md is missing")
    tables = {"methods": markdown.methods_table(document), "events": markdown.events_table(document)}
    return markdown.fill(current, tables)


OUTPUTS: dict[str, Writer] = {
    "docs/protocol.schema.json": _schema,
    "editors/vscode/shared/protocol.ts": lambda document, _: typescript.write(document),
    "editors/nvim/lua/agentls/server/protocol_types.lua": lambda document, _: luacats.write(document),
    "lsp_server/wire_methods.py": lambda document, _: markdown.wire_methods(document),
    "docs/protocol.md": _docs,
}


def render(root: Path) -> dict[str, str]:
    """Each output's path (relative to ``root``) and the text the source gives it."""
    document = schema.build()
    out = {}
    for relative, write in OUTPUTS.items():
        path = root / relative
        current = path.read_text(encoding="utf-8") if path.exists() else None
        out[relative] = write(document, current)
    return out


def main(argv: list[str]) -> int:
    """Write the outputs, or with ``--check`` name those that differ and exit 1."""
    check = "--check" in argv
    root = Path.cwd()
    try:
        rendered = render(root)
    except (schema.CollisionError, markdown.MarkerError) as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return 2
    stale = []
    for relative, text in rendered.items():
        path = root / relative
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(relative)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {relative}")
    if stale:
        for relative in stale:
            print(f"{relative} differs from what {COMMAND} writes from the protocol source", file=sys.stderr)
        print(f"run {COMMAND} (with the venv active) and commit what it writes", file=sys.stderr)
        return 1
    return 0
