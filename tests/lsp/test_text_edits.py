"""Positions in the client's encoding, and rebasing the agent's change on the user's typing."""

from __future__ import annotations

import pytest

from lsp_server.text_edits import end_position, rebase, smallest_edit


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


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "", ((0, 0), (0, 0), "")),
        ("abc", "abc", ((0, 3), (0, 3), "")),  # nothing changed: an empty edit at the end
        ("aaa", "aaaa", ((0, 3), (0, 3), "a")),  # repeated characters: prefix first, then tail
        ("a\r\nb\r\n", "a\r\nB\r\n", ((1, 0), (1, 1), "B")),
        ("x\r\ny", "x\ny", ((0, 1), (1, 0), "\n")),  # never inside a CRLF pair
        ("line\n" * 5000, "line\n" * 2500 + "LINE\n" + "line\n" * 2499, ((2500, 0), (2500, 4), "LINE")),
    ],
)
def test_smallest_edit(old: str, new: str, expected: tuple[tuple[int, int], tuple[int, int], str]) -> None:
    assert smallest_edit(old, new) == expected
    (l0, c0), (l1, c1), replacement = expected
    lines = old.splitlines(keepends=True) or [""]
    start = sum(len(line) for line in lines[:l0]) + c0
    end = sum(len(line) for line in lines[:l1]) + c1
    assert old[:start] + replacement + old[end:] == new
