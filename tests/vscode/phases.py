"""What a VS Code driver recorded, phase by phase: shared by the end-to-end scenarios."""

from __future__ import annotations

from typing import Any

import pytest


def phase_result(result: dict[str, Any], output: str, name: str) -> dict[str, Any]:
    """What the driver recorded in phase ``name``; fails the test with the driver's log if it failed."""
    data = result.get("phases", {}).get(name)
    if data is None or not data.get("ok"):
        failed = result.get("failed", "(none: the driver did not finish)")
        pytest.fail(
            f"phase {name!r} did not pass; {failed!r} failed: {result.get('error')}\n{output[-12000:]}",
            pytrace=False,
        )
    assert isinstance(data, dict)
    return data
