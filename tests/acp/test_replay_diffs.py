"""``apply_unified`` rebuilds exactly the text ``file_diff`` described, and refuses a diff that
does not fit (the replay then shows the call's fragments)."""

from __future__ import annotations

import random

import pytest

from acp_server.replay_diffs import apply_unified
from core.tools.diff import file_diff

PIECES = ["a\n", "b\n", "c\r\n", "d\n", "no newline", "", "\n"]


def test_every_diff_applies_to_its_before_text() -> None:
    rng = random.Random(23)
    for _ in range(2000):
        before = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        after = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))).replace("\r\n", "\n")
        assert apply_unified(before, file_diff("x.py", before, after).diff) == after, (before, after)


@pytest.mark.parametrize(
    ("before", "diff"),
    [
        ("x\n", file_diff("f", "y\n", "z\n").diff),  # the removed line is not there
        ("x\n", "@@ -5,1 +5,1 @@\n-x\n+y\n"),  # past the end
        ("x\n", "@@ nonsense @@\n"),
    ],
    ids=["other text", "out of range", "bad header"],
)
def test_a_diff_that_does_not_fit_is_refused(before: str, diff: str) -> None:
    assert apply_unified(before, diff) is None
