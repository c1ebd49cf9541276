"""grep (ripgrep and the Python search), glob and list over a project with ignore rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.glob import GlobTool
from core.tools.grep import GrepTool
from core.tools.list import ListTool
from core.tools.runner import run_tool
from core.tools.search import ripgrep
from tests.unit.tools.harness import Recorder

FILES: dict[str, str | bytes] = {
    ".gitignore": "*.log\nbuild/\n!keep.log\n/secret.txt\n",
    "src/app.py": "def handle_a():\n    return 1\n",
    "src/util.py": "def helper():\n    handle_b()\n",
    "src/.hidden.py": "handle_hidden\n",
    "src/sub/.gitignore": "generated.py\n",
    "src/sub/generated.py": "handle_gen\n",
    "src/sub/real.py": "handle_real\n",
    "src/sub/secret.txt": "handle_not_anchored\n",
    "build/out.py": "handle_build\n",
    "debug.log": "handle_log\n",
    "keep.log": "handle_keep\n",
    "secret.txt": "handle_secret\n",
    "data.txt": b"handle_bin\x00\x01",
    ".git/config": "handle_git\n",
    "notes.md": "handle_md\n",
    "node_modules/pkg/index.js": "handle_nm\n",
}
# Newest first in every listing sorted by time.
AGE_ORDER = [
    "notes.md",
    "src/sub/real.py",
    "keep.log",
    "src/app.py",
    "src/util.py",
    "src/sub/secret.txt",
    "node_modules/pkg/index.js",  # not ignored by any .gitignore, so searched (list hides it)
]


@pytest.fixture
def tree(project: Path) -> Path:
    for name, content in FILES.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    for name in FILES:
        os.utime(project / name, (1_600_000_000, 1_600_000_000))
    for age, name in enumerate(AGE_ORDER):
        stamp = 1_700_000_000 - age * 100
        os.utime(project / name, (stamp, stamp))
    return project


@pytest.fixture(params=[True, False], ids=["ripgrep", "python"])
def grep_tool(request: pytest.FixtureRequest) -> GrepTool:
    if request.param and ripgrep() is None:
        pytest.skip("ripgrep (rg) is not installed on this machine: only the Python search is tested")
    return GrepTool(use_ripgrep=request.param)


def files_in(output: str) -> list[str]:
    return [line[:-1] for line in output.splitlines() if line.endswith(":") and not line.startswith(" ")]


async def test_grep_respects_ignores_and_sorts_newest_first(
    grep_tool: GrepTool, tree: Path, ctx: ToolContext, recorder: Recorder
) -> None:
    result = await run_tool(grep_tool, {"pattern": r"handle_\w+"}, ctx)
    assert files_in(result.output) == AGE_ORDER
    assert result.output.startswith("Found 7 matches\n")
    assert "notes.md:\n  Line 1: handle_md\n" in result.output
    assert "  Line 2:     handle_b()" in result.output
    assert recorder.kinds() == ["grep"] and recorder.asks[0].patterns == [r"handle_\w+"]


async def test_grep_include_glob_and_sub_path(grep_tool: GrepTool, tree: Path, ctx: ToolContext) -> None:
    result = await run_tool(grep_tool, {"pattern": "handle", "include": "*.{py,md}"}, ctx)
    assert files_in(result.output) == ["notes.md", "src/sub/real.py", "src/app.py", "src/util.py"]
    result = await run_tool(grep_tool, {"pattern": "handle", "path": "src/sub"}, ctx)
    assert files_in(result.output) == ["src/sub/real.py", "src/sub/secret.txt"]
    result = await run_tool(grep_tool, {"pattern": "handle", "path": "src/app.py"}, ctx)
    assert files_in(result.output) == ["src/app.py"]


async def test_grep_caps_at_100_matches_with_a_note(
    grep_tool: GrepTool, project: Path, ctx: ToolContext
) -> None:
    (project / "many.txt").write_text("hit\n" * 80)
    (project / "more.txt").write_text("hit\n" * 70)
    result = await run_tool(grep_tool, {"pattern": "hit"}, ctx)
    assert result.output.startswith("Found 150 matches (showing the first 100)")
    assert result.output.count("  Line ") == 100
    assert "Not all matches are shown" in result.output
    assert result.metadata == {"matches": 150, "truncated": True}


async def test_grep_no_match_and_bad_regex(grep_tool: GrepTool, tree: Path, ctx: ToolContext) -> None:
    result = await run_tool(grep_tool, {"pattern": "absent_token"}, ctx)
    assert result.output == "No matches found."
    with pytest.raises(ToolError, match="grep failed"):
        await run_tool(grep_tool, {"pattern": "(unclosed"}, ctx)


async def test_grep_missing_path(grep_tool: GrepTool, tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="File not found"):
        await run_tool(grep_tool, {"pattern": "x", "path": "nope"}, ctx)


async def test_grep_outside_the_worktree_asks_external_directory(
    grep_tool: GrepTool, tmp_path: Path, ctx: ToolContext, recorder: Recorder
) -> None:
    outside = tmp_path / "other"
    outside.mkdir()
    (outside / "f.txt").write_text("needle\n")
    result = await run_tool(grep_tool, {"pattern": "needle", "path": str(outside)}, ctx)
    assert files_in(result.output) == [str(outside / "f.txt")]
    assert recorder.kinds() == ["external_directory", "grep"]
    assert recorder.asks[0].patterns == [f"{outside}/*"]


async def test_glob_respects_ignores_and_sorts_newest_first(
    tree: Path, ctx: ToolContext, recorder: Recorder
) -> None:
    result = await run_tool(GlobTool(), {"pattern": "**/*.py"}, ctx)
    assert result.output.splitlines() == ["src/sub/real.py", "src/app.py", "src/util.py"]
    assert recorder.kinds() == ["glob"]
    # Without a slash the pattern matches names at any depth, as in ripgrep's --glob.
    result = await run_tool(GlobTool(), {"pattern": "*.txt"}, ctx)
    assert result.output.splitlines() == ["src/sub/secret.txt", "data.txt"]
    result = await run_tool(GlobTool(), {"pattern": "src/*.py"}, ctx)
    assert result.output.splitlines() == ["src/app.py", "src/util.py"]
    result = await run_tool(GlobTool(), {"pattern": "*.py", "path": "src/sub"}, ctx)
    assert result.output.splitlines() == ["src/sub/real.py"]


async def test_glob_limit_and_errors(project: Path, ctx: ToolContext) -> None:
    for i in range(120):
        (project / f"f{i:03d}.txt").write_text("")
    result = await run_tool(GlobTool(), {"pattern": "*.txt"}, ctx)
    assert len(result.output.split("\n\n")[0].splitlines()) == 100
    assert "Showing 100 of 120 files" in result.output
    assert result.metadata == {"count": 120, "truncated": True}
    assert (await run_tool(GlobTool(), {"pattern": "*.rs"}, ctx)).output == "No files found."
    with pytest.raises(ToolError, match="not a folder"):
        await run_tool(GlobTool(), {"pattern": "*", "path": "f000.txt"}, ctx)


async def test_list_renders_a_tree_without_junk_or_ignored_entries(
    tree: Path, ctx: ToolContext, recorder: Recorder
) -> None:
    (tree / "src" / "__pycache__").mkdir()
    (tree / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"")
    (tree / ".env").write_text("X=1\n")
    result = await run_tool(ListTool(), {}, ctx)
    assert result.output == "\n".join(
        [
            f"{tree}/",
            "  src/",
            "    sub/",
            "      .gitignore",
            "      real.py",
            "      secret.txt",
            "    .hidden.py",
            "    app.py",
            "    util.py",
            "  .env",
            "  .gitignore",
            "  data.txt",
            "  keep.log",
            "  notes.md",
        ]
    )
    assert recorder.kinds() == ["list"]


async def test_list_extra_ignores_and_sub_path(tree: Path, ctx: ToolContext) -> None:
    result = await run_tool(ListTool(), {"path": "src", "ignore": ["sub/", "*.py"]}, ctx)
    assert result.output == f"{tree / 'src'}/\n(empty, or everything in it is ignored)"
    result = await run_tool(ListTool(), {"path": "src", "ignore": ["app.*"]}, ctx)
    assert result.output.splitlines()[1:] == [
        "  sub/",
        "    .gitignore",
        "    real.py",
        "    secret.txt",
        "  .hidden.py",
        "  util.py",
    ]


async def test_list_limit_shallowest_first(project: Path, ctx: ToolContext) -> None:
    deep = project / "a" / "b"
    deep.mkdir(parents=True)
    for i in range(60):
        (project / f"top{i:02d}.txt").write_text("")
        (deep / f"deep{i:02d}.txt").write_text("")
    result = await run_tool(ListTool(), {}, ctx)
    assert "top59.txt" in result.output and "deep00.txt" in result.output
    assert "deep59.txt" not in result.output
    assert "Showing the first 100 entries" in result.output
    assert result.metadata == {"count": 100, "truncated": True}


async def test_list_errors(project: Path, ctx: ToolContext) -> None:
    (project / "f.txt").write_text("")
    with pytest.raises(ToolError, match="is a file"):
        await run_tool(ListTool(), {"path": "f.txt"}, ctx)
    with pytest.raises(ToolError, match="File not found"):
        await run_tool(ListTool(), {"path": "missing"}, ctx)
