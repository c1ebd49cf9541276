"""The write tool: create, overwrite, diff in the permission request and the result."""

from __future__ import annotations

from pathlib import Path

from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.write import WriteTool
from tests.unit.tools.harness import Recorder, text_of


async def test_creates_a_file_and_its_parents(ctx: ToolContext, project: Path, recorder: Recorder) -> None:
    result = await run_tool(WriteTool(), {"filePath": "pkg/sub/new.py", "content": "a = 1\nb = 2\n"}, ctx)
    assert text_of(project / "pkg/sub/new.py") == "a = 1\nb = 2\n"
    assert result.output == "Created pkg/sub/new.py (2 lines)."
    assert result.metadata["exists"] is False
    assert result.metadata["additions"] == 2 and result.metadata["deletions"] == 0
    ask = recorder.asks[-1]
    assert ask.permission == "edit" and ask.patterns == ["pkg/sub/new.py"]
    assert ask.metadata["filepath"] == str(project / "pkg/sub/new.py")
    assert "+a = 1" in ask.metadata["diff"]


async def test_overwrites_and_reports_the_diff(ctx: ToolContext, project: Path) -> None:
    (project / "f.txt").write_text("keep\nold\n")
    result = await run_tool(WriteTool(), {"filePath": "f.txt", "content": "keep\nnew\n"}, ctx)
    assert text_of(project / "f.txt") == "keep\nnew\n"
    assert result.output == "Overwrote f.txt (2 lines)."
    diff = result.metadata["diff"]
    assert diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert "-old\n" in diff and "+new\n" in diff and " keep\n" in diff
    assert (result.metadata["additions"], result.metadata["deletions"]) == (1, 1)


async def test_nothing_is_written_when_permission_is_rejected(ctx: ToolContext, project: Path) -> None:
    import pytest

    from core.errors import PermissionRejectedError
    from core.permission.request import PermissionAsk

    async def reject(request: PermissionAsk) -> None:
        raise PermissionRejectedError("no", feedback="use another name")

    ctx.ask = reject
    with pytest.raises(PermissionRejectedError):
        await run_tool(WriteTool(), {"filePath": "x.txt", "content": "x"}, ctx)
    assert not (project / "x.txt").exists()


async def test_outside_the_worktree_asks_external_directory(
    ctx: ToolContext, tmp_path: Path, recorder: Recorder
) -> None:
    target = tmp_path / "out" / "file.txt"
    await run_tool(WriteTool(), {"filePath": str(target), "content": "x"}, ctx)
    assert recorder.kinds() == ["external_directory", "edit"]
    assert recorder.asks[0].patterns == [f"{tmp_path / 'out'}/*"]
    assert text_of(target) == "x"
