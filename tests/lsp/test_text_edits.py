"""Positions in the client's encoding, and rebasing the agent's change on the user's typing."""

from __future__ import annotations

import pytest

from lsp_server.text_edits import end_position, rebase


@pytest.mark.parametrize(
    ("text", "encoding", "expected"),
    [
        ("", "utf-16", (0, 0)),
        ("a\nbc", "utf-16", (1, 2)),
        ("a\r\nb\n", "utf-16", (2, 0)),
        ("a\rb", "utf-16", (1, 1)),
        ("x😀", "utf-16", (0, 3)),
        ("x😀", "utf-8", (0, 5)),
        ("x😀", "utf-32", (0, 2)),
    ],
)
def test_end_position(text: str, encoding: str, expected: tuple[int, int]) -> None:
    assert end_position(text, encoding) == expected


def test_rebase_keeps_both_changes_when_apart() -> None:
    base = "one\ntwo\nthree\n"
    assert rebase(base, "ONE\ntwo\nthree\n", "one\ntwo\nthree!\n") == "ONE\ntwo\nthree!\n"
    assert rebase(base, "one\ntwo\nTHREE\n", "1one\ntwo\nthree\n") == "1one\ntwo\nTHREE\n"


def test_rebase_refuses_overlapping_changes() -> None:
    base = "one\ntwo\nthree\n"
    assert rebase(base, "one\nTWO\nthree\n", "one\ntwo!\nthree\n") is None
    assert rebase(base, "one\nX\ntwo\nthree\n", "one\nY\ntwo\nthree\n") is None


def test_rebase_when_one_side_did_nothing() -> None:
    assert rebase("a", "b", "a") == "b"
    assert rebase("a", "a", "c") == "c"
