"""The reaper helper's protocol: which groups it would kill when agentls is gone."""

from __future__ import annotations

import io

import pytest

from core.tools.reaper import serve


@pytest.mark.parametrize(
    ("lines", "left"),
    [
        (b"+100\n+200\n-100\n", {200}),
        (b"+100\n", {100}),
        (b"+100\n-100\n", set()),
        (b"+0\n+1\n+-5\n-\n+\n", set()),  # never 0 (own group), 1 (init) or negative ("every process")
        (b"+12x\nkill 5\n+ 7\n", set()),  # garbage is ignored, not guessed at
        (b"+300", {300}),  # the last line need not end in a newline (EOF as agentls dies)
    ],
)
def test_groups_left_at_end_of_file(lines: bytes, left: set[int]) -> None:
    assert serve(io.BytesIO(lines)) == left
