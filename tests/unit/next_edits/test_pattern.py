"""Which edits start a pattern, and where its remaining sites are (bounded)."""

from __future__ import annotations

import time

import pytest

from core.next_edits.pattern import Pattern, anchor, changed_lines, detect
from core.next_edits.sites import MAX_LINES, Site, find_sites, nearest_first


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # A renamed parameter, in the signature and the body.
        (
            ["def scale(value, factor):", "    return value * factor"],
            ["def scale(amount, factor):", "    return amount * factor"],
            ("rename", "value", "amount"),
        ),
        # A renamed function at a call.
        (["x = load_rows(path)"], ["x = read_rows(path)"], ("rename", "load_rows", "read_rows")),
        # A new argument: the call's arguments changed.
        (["def send(msg):"], ["def send(msg, timeout):"], ("signature", "send", "send")),
        (["send(m)"], ["send(m, timeout=5)"], ("signature", "send", "send")),
        # Not a pattern: two different renames, a keyword, a rewritten line, no change, nothing.
        (["a = b + c"], ["x = y + c"], None),
        (["if x:"], ["while x:"], None),
        (["return total"], ["print('done')"], None),
        (["same"], ["same"], None),
        ([], ["new"], None),
        (["gone"], [], None),
        # Two calls' arguments changed: which one is the pattern is not known.
        (["f(a) + g(b)"], ["f(a, 1) + g(b, 2)"], None),
    ],
)
def test_detect(before: list[str], after: list[str], expected: tuple[str, str, str] | None) -> None:
    found = detect(before, after)
    assert (None if found is None else (found.kind, found.old, found.new)) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", (["b"], ["B"])),
        ("a\nb\nc\n", "a\nb\nc\n", None),
        ("a\nb\n", "a\nx\ny\nb\n", ([], ["x", "y"])),
        ("x\n" * 500, "y\n" * 500, None),  # a reload or a paste: too long to be one edit
    ],
)
def test_changed_lines(old: str, new: str, expected: tuple[list[str], list[str]] | None) -> None:
    assert changed_lines(old, new) == expected


RENAME = Pattern("rename", "value", "amount", ("def scale(value):",), ("def scale(amount):",))
SIGNATURE = Pattern("signature", "send", "send", ("def send(msg):",), ("def send(msg, timeout):",))


def test_sites_of_a_rename_are_whole_words_not_already_done() -> None:
    text = "def scale(amount):\nscale(value=1)\nvalues = 2\nmy_value = 3\nobj.value\n"
    sites = find_sites(RENAME, [("u", text)])
    assert [(s.line, s.text) for s in sites] == [(1, "scale(value=1)"), (4, "obj.value")]


def test_sites_of_a_signature_are_calls_of_that_name() -> None:
    text = "def send(msg, timeout):\nsend(a)\nresend(b)\nx.send(c)\nsend (d)\n"
    sites = find_sites(SIGNATURE, [("u", text)])
    assert [s.line for s in sites] == [1, 4]


def test_a_huge_document_is_scanned_only_up_to_the_bounds() -> None:
    text = "scale(value)\n" * (MAX_LINES * 5) + ("x" * 10_000 + " value\n")
    started = time.perf_counter()
    sites = find_sites(RENAME, [("huge", text), ("small", "value\n")], max_sites=10)
    assert len(sites) == 10 and all(s.uri == "huge" for s in sites)
    everything = find_sites(RENAME, [("huge", text)], max_sites=10**9)
    assert len(everything) == MAX_LINES  # the lines past the bound (and the long one) are not read
    assert time.perf_counter() - started < 5  # a guard against a runaway scan, not a speed goal


def test_nearest_first_puts_the_users_document_and_line_first() -> None:
    sites = [Site("a", 1, ""), Site("b", 50, ""), Site("b", 2, ""), Site("b", 40, "")]
    assert nearest_first(sites, "b", 44) == [
        Site("b", 40, ""),
        Site("b", 50, ""),
        Site("b", 2, ""),
        Site("a", 1, ""),
    ]


def test_the_same_change_at_another_line_is_the_same_pattern() -> None:
    # Applying a suggestion is an edit too: it must not start the pattern (and its cache) anew.
    first = detect(["def scale(value):"], ["def scale(amount):"])
    again = detect(["print(scale(value=2))"], ["print(scale(amount=2))"])
    assert first is not None and first == again


def test_the_anchor_is_the_function_whose_calls_are_the_sites() -> None:
    renamed = detect(["def send(msg, loud=False):"], ["def send(text, loud=False):"])
    assert renamed is not None and anchor(renamed, ["def send(text, loud=False):"]) == (0, 4)
    signature = detect(["def send(msg):"], ["def send(msg, timeout):"])
    assert signature is not None and anchor(signature, ["", "  def send(msg, timeout):"]) == (1, 6)
    function = detect(["def total(xs):"], ["def sum_of(xs):"])
    assert function is not None and anchor(function, ["def sum_of(xs):"]) == (0, 4)
    local = detect(["    x = 1"], ["    y = 1"])  # a renamed variable names no function
    assert local is not None and anchor(local, ["    y = 1"]) is None
