"""What the model sees of each built-in tool, pinned: a change here changes the model-facing contract.

Regenerate after an intended change with ``AGENTLS_UPDATE_SNAPSHOTS=1 pytest tests/unit/tools``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.tools.registry import builtin_registry

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("AGENTLS_UPDATE_SNAPSHOTS") == "1"
TOOLS = builtin_registry()


@pytest.mark.parametrize("tool_id", TOOLS.ids())
def test_tool_spec_matches_snapshot(tool_id: str) -> None:
    tool = TOOLS.get(tool_id)
    assert tool is not None
    rendered = json.dumps(tool.spec(), indent=2, ensure_ascii=False) + "\n"
    snapshot = SNAPSHOTS / f"{tool_id}.json"
    if UPDATE:
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot for {tool_id}: run with AGENTLS_UPDATE_SNAPSHOTS=1"
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"the {tool_id} tool's spec changed; if intended, regenerate with AGENTLS_UPDATE_SNAPSHOTS=1"
    )


def test_every_parameter_is_described() -> None:
    for tool in TOOLS.all():
        for name, prop in tool.spec()["parameters"]["properties"].items():
            assert prop.get("description"), f"{tool.id}.{name} has no description"
