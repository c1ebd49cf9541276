"""The edit tool and its matching strategies."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.edit import EditTool
from core.tools.matching import replace
from core.tools.runner import run_tool
from tests.unit.tools.harness import Recorder, text_of


async def edit(ctx: ToolContext, path: str, old: str, new: str, **kw: object) -> dict[str, object]:
    args = {"filePath": path, "oldString": old, "newString": new, **kw}
    return (await run_tool(EditTool(), args, ctx)).metadata


def test_exact_match_wins() -> None:
    result = replace("a = 1\nb = 2\n", "b = 2", "b = 3", replace_all=False, label="f")
    assert (result.content, result.strategy) == ("a = 1\nb = 3\n", "exact")


def test_line_trimmed_ignores_leading_and_trailing_whitespace_per_line() -> None:
    content = "def f():\n    x = 1   \n    return x\n"
    result = replace(content, "x = 1\nreturn x", "y = 2\nreturn y", replace_all=False, label="f")
    assert result.strategy == "line-trimmed"
    # The model dropped the indentation; it is restored from the matched text.
    assert result.content == "def f():\n    y = 2\n    return y\n"


def test_whitespace_normalised_matches_runs_of_spaces_inside_a_line() -> None:
    content = "call(a,   b,\tc)  # note\n"
    result = replace(content, "call(a, b, c)", "call(c)", replace_all=False, label="f")
    assert (result.content, result.strategy) == ("call(c)  # note\n", "whitespace-normalized")


def test_whitespace_normalised_does_not_double_surrounding_whitespace() -> None:
    content = "    x  =  1\ny = 2\n"
    result = replace(content, "    x = 1 \n", "    x = 5\n", replace_all=False, label="f")
    assert (result.content, result.strategy) == ("    x = 5\ny = 2\n", "whitespace-normalized")


def test_indentation_flexible_keeps_relative_indentation() -> None:
    content = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n"
    old = "def f(self):\n    return 1"
    new = "def f(self):\n    return 2"
    # Line-trimmed finds it first; the point is that newString is shifted to the file's indentation.
    result = replace(content, old, new, replace_all=False, label="f")
    expected = content.replace("def f(self):\n        return 1", "def f(self):\n        return 2")
    assert result.content == expected


def test_indentation_flexible_is_used_when_trimmed_lines_are_ambiguous() -> None:
    # Both blocks have the same trimmed lines, only one has the same relative indentation.
    content = "if a:\n    b()\nc()\n\nif a:\nb()\nc()\n"
    result = replace(content, "  if a:\n      b()\n  c()", "done()", replace_all=False, label="f")
    assert result.strategy == "indentation-flexible"
    assert result.content == "done()\n\nif a:\nb()\nc()\n"


def test_anchor_lines_accept_a_slightly_different_middle() -> None:
    content = "def run():\n    load()\n    process(items)\n    save()\n    return True\n"
    old = "def run():\n    load()\n    process(item)\n    store()\n    return True"
    result = replace(content, old, "def run():\n    return False", replace_all=False, label="f")
    assert result.strategy == "anchor-lines"
    assert result.content == "def run():\n    return False\n"


def test_anchor_lines_reject_a_dissimilar_middle() -> None:
    content = "def run():\n    totally()\n    unrelated()\n    code_here()\n    return True\n"
    old = "def run():\n    load()\n    x\n    return True"
    with pytest.raises(ToolError, match="not found"):
        replace(content, old, "pass", replace_all=False, label="f")


def test_several_matches_are_an_error_unless_replace_all() -> None:
    content = "x = 1\ny = 2\nx = 1\n"
    with pytest.raises(ToolError, match=r"matches 2 places in f.*replaceAll"):
        replace(content, "x = 1", "x = 9", replace_all=False, label="f")
    result = replace(content, "x = 1", "x = 9", replace_all=True, label="f")
    assert (result.content, result.count) == ("x = 9\ny = 2\nx = 9\n", 2)


def test_overlapping_occurrences_count_as_ambiguous() -> None:
    with pytest.raises(ToolError, match="matches"):
        replace("a\na\na\n", "a\na", "b", replace_all=False, label="f")


def test_no_match_tells_the_model_to_read_again() -> None:
    with pytest.raises(ToolError, match="Read the file again"):
        replace("a\nb\n", "zzz", "y", replace_all=False, label="f")


async def test_edit_writes_the_file_and_reports_a_diff(
    ctx: ToolContext, project: Path, recorder: Recorder
) -> None:
    (project / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    meta = await edit(ctx, "m.py", "b = 2", "b = 20\nb2 = 21")
    assert text_of(project / "m.py") == "a = 1\nb = 20\nb2 = 21\nc = 3\n"
    assert (meta["additions"], meta["deletions"]) == (2, 1)
    assert "-b = 2\n+b = 20\n+b2 = 21\n" in str(meta["diff"])
    ask = recorder.asks[-1]
    assert ask.permission == "edit" and ask.patterns == ["m.py"]
    assert ask.metadata["diff"] == meta["diff"]


async def test_crlf_and_bom_are_preserved(ctx: ToolContext, project: Path) -> None:
    path = project / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    await edit(ctx, "win.txt", "two\nthree", "2\n3\n4")
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n4\r\n"


async def test_crlf_in_old_string_matches_an_lf_file(ctx: ToolContext, project: Path) -> None:
    (project / "lf.txt").write_text("one\ntwo\n")
    await edit(ctx, "lf.txt", "one\r\ntwo", "1\r\n2")
    assert (project / "lf.txt").read_bytes() == b"1\n2\n"


async def test_identical_strings_are_refused(ctx: ToolContext, project: Path) -> None:
    (project / "f.txt").write_text("x")
    with pytest.raises(ToolError, match="identical"):
        await edit(ctx, "f.txt", "x", "x")


async def test_empty_old_string_creates_a_missing_file(ctx: ToolContext, project: Path) -> None:
    meta = await edit(ctx, "new/file.txt", "", "hello\n")
    assert text_of(project / "new/file.txt") == "hello\n"
    assert meta["strategy"] == "create"


async def test_empty_old_string_on_a_non_empty_file_is_refused(ctx: ToolContext, project: Path) -> None:
    (project / "f.txt").write_text("content")
    with pytest.raises(ToolError, match="write tool"):
        await edit(ctx, "f.txt", "", "other")
    assert text_of(project / "f.txt") == "content"


async def test_missing_file_with_an_old_string_is_not_found(ctx: ToolContext, project: Path) -> None:
    (project / "main.py").write_text("")
    with pytest.raises(ToolError, match="Did you mean"):
        await edit(ctx, "main.pyi", "a", "b")


async def test_replace_all_through_the_tool(ctx: ToolContext, project: Path) -> None:
    (project / "r.py").write_text("foo(1)\nfoo(2)\n")
    meta = await edit(ctx, "r.py", "foo", "bar", replaceAll=True)
    assert text_of(project / "r.py") == "bar(1)\nbar(2)\n"
    assert meta["replacements"] == 2


async def test_no_match_leaves_the_file_alone_and_asks_nothing(
    ctx: ToolContext, project: Path, recorder: Recorder
) -> None:
    (project / "f.txt").write_text("abc\n")
    with pytest.raises(ToolError, match="not found"):
        await edit(ctx, "f.txt", "xyz", "q")
    assert text_of(project / "f.txt") == "abc\n"
    assert recorder.asks == []
