"""The apply_patch format: what parses into which operations, what is refused and how it is named,
and how hunks are placed in a file's text."""

from __future__ import annotations

import pytest

from core.tools.apply_patch_hunks import apply_hunks
from core.tools.apply_patch_parse import AddFile, DeleteFile, Hunk, PatchError, UpdateFile, parse_patch


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


PARSED = [
    (
        "add file",
        patch("*** Add File: a.py", "+x = 1", "+", "+y = 2"),
        [AddFile("a.py", "x = 1\n\ny = 2\n")],
    ),
    ("add empty file", patch("*** Add File: empty.txt"), [AddFile("empty.txt", "")]),
    ("delete file", patch("*** Delete File: old.txt"), [DeleteFile("old.txt")]),
    (
        "update with header",
        patch("*** Update File: m.py", "@@ def f():", "     a = 1", "-    b = 2", "+    b = 3"),
        [
            UpdateFile(
                "m.py", None, [Hunk(1, "def f():", ["    a = 1", "    b = 2"], ["    a = 1", "    b = 3"])]
            )
        ],
    ),
    (
        "first hunk without @@",
        patch("*** Update File: m.py", " a", "-b", "+c"),
        [UpdateFile("m.py", None, [Hunk(1, "", ["a", "b"], ["a", "c"])])],
    ),
    (
        "two hunks, blank context line without its space",
        patch("*** Update File: m.py", "@@", " a", "", "-b", "@@", "-z", "+y"),
        [UpdateFile("m.py", None, [Hunk(1, "", ["a", "", "b"], ["a", ""]), Hunk(2, "", ["z"], ["y"])])],
    ),
    (
        "end of file marker",
        patch("*** Update File: m.py", "@@", " last", "+more", "*** End of File"),
        [UpdateFile("m.py", None, [Hunk(1, "", ["last"], ["last", "more"], end_of_file=True)])],
    ),
    (
        "move with a hunk",
        patch("*** Update File: a.py", "*** Move to: b/a.py", "@@", "-x", "+y"),
        [UpdateFile("a.py", "b/a.py", [Hunk(1, "", ["x"], ["y"])])],
    ),
    ("move only", patch("*** Update File: a.py", "*** Move to: b.py"), [UpdateFile("a.py", "b.py", [])]),
    (
        "several files, blank lines between sections",
        patch("*** Delete File: x", "", "*** Add File: y", "+1", ""),
        [DeleteFile("x"), AddFile("y", "1\n")],
    ),
    (
        "CRLF and surrounding blank lines",
        "\r\n*** Begin Patch\r\n*** Add File: c.txt\r\n+hi\r\n*** End Patch\r\n\r\n",
        [AddFile("c.txt", "hi\n")],
    ),
    (
        "heredoc wrapper of the shell form",
        "apply_patch <<'EOF'\n" + patch("*** Delete File: x") + "\nEOF",
        [DeleteFile("x")],
    ),
    (
        "@@ header written with closing @@",
        patch("*** Update File: m.py", "@@ class A @@", "-a", "+b"),
        [UpdateFile("m.py", None, [Hunk(1, "class A", ["a"], ["b"])])],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in PARSED], ids=[n for n, _, _ in PARSED])
def test_parse(text: str, expected: list[object]) -> None:
    assert parse_patch(text) == expected


REFUSED = [
    ("no begin", "*** Add File: a\n+x\n*** End Patch", "must start with the line '*** Begin Patch'"),
    ("no end", "*** Begin Patch\n*** Add File: a\n+x", "must end with the line '*** End Patch'"),
    ("empty", "", "must start"),
    ("no files", patch(), "changes no file"),
    ("unknown section", patch("*** Rename File: a"), "Patch line 2: expected '*** Add File:'"),
    ("stray text", patch("hello"), "Patch line 2: expected"),
    (
        "add line without +",
        patch("*** Add File: a", "+x", "y"),
        "Patch line 4: every line of '*** Add File: a'",
    ),
    (
        "delete with body",
        patch("*** Delete File: a", "-x"),
        "Patch line 3: '*** Delete File: a' takes no lines",
    ),
    ("path missing", patch("*** Update File: ", "-x"), "Patch line 2: '*** Update File:' needs a file path"),
    ("update without hunks", patch("*** Update File: a"), "'*** Update File: a' has no hunks"),
    ("empty hunk", patch("*** Update File: a", "@@", "@@", "-x"), "Hunk 1 of a is empty"),
    (
        "bad hunk line",
        patch("*** Update File: a", "@@", " ok", "*bad"),
        "Patch line 5: in hunk 1 of a, every line must start with",
    ),
    ("lone end of file", patch("*** Update File: a", "*** End of File"), "must close a hunk of a"),
    (
        "line after end of file",
        patch("*** Update File: a", "@@", "-x", "*** End of File", "+y"),
        "nothing may follow '*** End of File'",
    ),
    ("unclosed heredoc", "<<EOF\n" + patch("*** Delete File: x"), "must start"),
]


@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_refused(text: str, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        parse_patch(text)
    assert message in str(caught.value)


def hunk(old: list[str], new: list[str], header: str = "", number: int = 1, eof: bool = False) -> Hunk:
    return Hunk(number, header, old, new, eof)


APPLIED = [
    ("replace a line", "a\nb\nc\n", [hunk(["a", "b"], ["a", "B"])], "a\nB\nc\n"),
    ("no trailing newline kept", "a\nb", [hunk(["b"], ["c"])], "a\nc"),
    ("indentation of context tolerated", "    a\n    b\n", [hunk(["a", "b"], ["a", "  x"])], "    a\n  x\n"),
    ("context kept as the file has it", "a  \nb\n", [hunk(["a", "b"], ["a", "c"])], "a  \nc\n"),
    (
        "header picks the second of two matches",
        "def f():\n    x\ndef g():\n    x\n",
        [hunk(["    x"], ["    y"], header="def g():")],
        "def f():\n    x\ndef g():\n    y\n",
    ),
    (
        "header prefix matches a longer line",
        "class A:\n    x\nclass B(Base):\n    x\n",
        [hunk(["    x"], ["    z"], header="class B")],
        "class A:\n    x\nclass B(Base):\n    z\n",
    ),
    (
        "hunks in order: the second starts after the first",
        "x\nx\n",
        [hunk(["x"], ["1"]), hunk(["x"], ["2"], number=2)],
        "1\n2\n",
    ),
    (
        "end of file anchors at the end",
        "x\ny\nx\n",
        [hunk(["x"], ["z"], eof=True)],
        "x\ny\nz\n",
    ),
    ("pure addition goes to the end", "a\n", [hunk([], ["b"])], "a\nb\n"),
    ("pure addition after its header", "a\nb\n", [hunk([], ["new"], header="a")], "a\nnew\nb\n"),
    ("blank trailing context beyond the end", "a\nb\n", [hunk(["b", ""], ["c", ""])], "a\nc\n"),
    ("everything removed", "a\n", [hunk(["a"], [])], ""),
    ("empty file filled", "", [hunk([], ["a"])], "a\n"),
]


@pytest.mark.parametrize(
    ("text", "hunks", "expected"), [(t, h, e) for _, t, h, e in APPLIED], ids=[n for n, _, _, _ in APPLIED]
)
def test_apply(text: str, hunks: list[Hunk], expected: str) -> None:
    assert apply_hunks(text, hunks, "f.py") == expected


MISFIT = [
    ("context not in file", "a\nb\n", [hunk(["a", "q"], ["a"])], "Hunk 1 of f.py does not apply", "  q"),
    (
        "second hunk before the first",
        "x\ny\n",
        [hunk(["y"], ["Y"]), hunk(["x"], ["X"], number=2)],
        "Hunk 2 of f.py does not apply",
        "after the previous hunk",
    ),
    ("header missing", "a\n", [hunk(["a"], ["b"], header="def nope")], "its line '@@ def nope'", "Hunk 1"),
    ("not at the end", "x\ny\n", [hunk(["x"], ["z"], eof=True)], "at the end of the file", "  x"),
]


@pytest.mark.parametrize(
    ("text", "hunks", "first", "second"),
    [(t, h, a, b) for _, t, h, a, b in MISFIT],
    ids=[n for n, _, _, _, _ in MISFIT],
)
def test_misfit_names_the_hunk(text: str, hunks: list[Hunk], first: str, second: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_hunks(text, hunks, "f.py")
    assert first in str(caught.value)
    assert second in str(caught.value)
