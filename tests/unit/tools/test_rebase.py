"""rebase: a tool's edit re-applied over what the user typed while its permission dialog waited."""

from __future__ import annotations

import pytest

from core.tools.rebase import rebase

BASE = "a\nb\nc\nd\ne\nf\n"


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        ("a\nB\nc\nd\ne\nf\n", BASE, "a\nB\nc\nd\ne\nf\n"),  # the user typed nothing
        (BASE, "# mine\n" + BASE, "# mine\n" + BASE),  # the tool changed nothing
        ("a\nb\nc\nd\nE\nf\n", "# mine\n" + BASE, "# mine\na\nb\nc\nd\nE\nf\n"),  # typed above
        ("a\nB\nc\nd\ne\nf\n", "a\nb\nc\nd\ne\nf\n# end\n", "a\nB\nc\nd\ne\nf\n# end\n"),  # typed below
        ("a\nB\nc\nd\ne\nf\n", "a\nb\nc\nd, mine\ne\nf\n", "a\nB\nc\nd, mine\ne\nf\n"),  # elsewhere
        ("a\nB\nc\nd\ne\nf\n", "a\nb, mine\nc\nd\ne\nf\n", None),  # the same line
        ("a\nB\nc\nd\ne\nf\n", "a\nb\nc, mine\nd\ne\nf\n", None),  # the next line: too close
        ("A\nb\nc\nd\ne\nf\n", "# mine\n" + BASE, None),  # inserted right above the change
        ("a\nb\nc\nd\ne\nF", "a\nb\nc\nd\ne\nf\ng\n", None),  # both at the end
    ],
)
def test_rebase(ours: str, theirs: str, expected: str | None) -> None:
    assert rebase(BASE, ours, theirs) == expected


def test_crlf_lines_keep_their_endings() -> None:
    base = "a\r\nb\r\nc\r\n"
    assert rebase(base, "a\r\nB\r\nc\r\n", "# mine\r\n" + base) == "# mine\r\na\r\nB\r\nc\r\n"
