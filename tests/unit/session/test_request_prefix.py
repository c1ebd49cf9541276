"""The reads20 property, small: every request of a task starts with the bytes of the one before, so a
provider's prefix cache serves all but what each step adds. Measured with the bench's own figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.cache_prefix import figures
from demo import Turn
from tests.unit.tools.loop_harness import run_turn

READS = 4


def _anthropic_wire(config: dict[str, Any]) -> None:
    fake = config["provider"]["fake"]
    fake["litellm_provider"] = "anthropic"
    fake["options"]["api_base"] = fake["options"]["api_base"].removesuffix("/v1")


@pytest.mark.parametrize("route", ["openai", "anthropic"])
async def test_each_step_resends_the_previous_request_byte_for_byte(tmp_path: Path, route: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("".join(f"line {i}\n" for i in range(READS)))
    reads = [Turn.tool_call("read", {"filePath": "a.txt", "offset": i}, fragments=1) for i in range(READS)]
    result = await run_turn(
        project,
        tmp_path / "data",
        *reads,
        Turn.text("done"),
        tweak=_anthropic_wire if route == "anthropic" else None,
    )
    f = figures([r.body for r in result.requests])
    assert f.requests == READS + 1
    assert f.stable, f"steps {f.unstable_steps} rewrite bytes an earlier request sent"
    assert f.first_kept >= f.first_bytes - 2
    # The guidance is in the cached prefix, so it is paid for once per task, not once per step.
    assert f.uncached_bytes < f.first_bytes + (f.total_bytes - f.first_bytes) // READS


def test_a_changed_early_byte_is_reported_unstable() -> None:
    first = {"tools": [{"name": "read"}], "messages": [{"role": "system", "content": "today is Monday"}]}
    second = {
        "tools": [{"name": "read"}],
        "messages": [{"role": "system", "content": "today is Tuesday"}, {"role": "user", "content": "hi"}],
    }
    grown = first | {"messages": [*first["messages"], {"role": "user", "content": "hi"}]}
    f = figures([first, grown, second])
    assert f.unstable_steps == [2]
    assert not f.stable
    with pytest.raises(ValueError, match="never reached the model"):
        figures([])
