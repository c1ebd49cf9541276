"""Reading a code review's findings from the agent's answer: the asked form and the variants
models write, and what is not a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.commands.findings import parse_findings, says_no_findings

ROOT = Path("/repo")

READ = [
    (
        "asked form",
        "1. [high] src/calc.py:12 - add() subtracts.",
        ("src/calc.py", 12, 12, "high", "add() subtracts."),
    ),
    ("range", "2. [medium] a.py:4-9 - leaks the handle", ("a.py", 4, 9, "medium", "leaks the handle")),
    ("bullet, em dash", "- [low] a.py:3 \u2014 name is vague", ("a.py", 3, 3, "low", "name is vague")),
    (
        "bold severity",
        "1. **[HIGH]** a.py:1: crashes on empty input",
        ("a.py", 1, 1, "high", "crashes on empty input"),
    ),
    ("backticked place", "1) [warning] `pkg/m.py:20` - races", ("pkg/m.py", 20, 20, "medium", "races")),
    (
        "no marker",
        "[critical] ./x.py:7 - SQL built from input",
        ("x.py", 7, 7, "high", "SQL built from input"),
    ),
    ("nit", "3. [nit] x.py:2 - typo in comment", ("x.py", 2, 2, "low", "typo in comment")),
]


@pytest.mark.parametrize(("line", "expected"), [(li, e) for _, li, e in READ], ids=[n for n, _, _ in READ])
def test_a_finding_line(line: str, expected: tuple[str, int, int, str, str]) -> None:
    (finding,) = parse_findings(f"Here is the review.\n\n{line}\n\nSummary: fine otherwise.", ROOT)
    assert (finding.file, finding.line, finding.endLine, finding.severity, finding.reason) == expected
    assert finding.path == f"/repo/{expected[0]}" and finding.id == "f1"


NOT_FINDINGS = [
    ("prose mentioning a place", "The bug at a.py:3 is high risk."),
    ("unknown severity", "1. [spicy] a.py:3 - hot"),
    ("outside the project", "1. [high] ../etc/passwd:1 - read"),
    ("absolute outside", "1. [high] /etc/passwd:1 - read"),
    ("no reason", "1. [high] a.py:3"),
    ("line zero", "1. [high] a.py:0 - before the file"),
    ("backwards range", "1. [high] a.py:9-4 - inverted"),
    ("no line", "1. [high] a.py - somewhere"),
]


@pytest.mark.parametrize("text", [t for _, t in NOT_FINDINGS], ids=[n for n, _ in NOT_FINDINGS])
def test_not_a_finding(text: str) -> None:
    assert parse_findings(text, ROOT) == []


def test_several_findings_keep_their_order_and_ids() -> None:
    answer = "1. [high] b.py:2 - one\n2. [low] a.py:1 - two\n"
    assert [(f.id, f.file) for f in parse_findings(answer, ROOT)] == [("f1", "b.py"), ("f2", "a.py")]


@pytest.mark.parametrize(
    ("answer", "none"),
    [
        ("No findings.", True),
        ("**No findings.**\n\nThe change is small.", True),
        ("There are no findings here but", False),
    ],
)
def test_no_findings_is_said_on_its_own_line(answer: str, none: bool) -> None:
    assert says_no_findings(answer) is none
