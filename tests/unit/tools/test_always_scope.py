"""An "always" on a file tool covers that file, never the whole project (OpenCode users' complaint)."""

from __future__ import annotations

from pathlib import Path

from core.tools.context import ToolContext
from core.tools.edit import EditTool
from core.tools.read import ReadTool
from core.tools.runner import run_tool
from core.tools.write import WriteTool

from .harness import Recorder


async def test_file_tools_offer_always_for_the_file_only(
    ctx: ToolContext, recorder: Recorder, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("x = 1\n")
    await run_tool(ReadTool(), {"filePath": "src/a.py"}, ctx)
    await run_tool(EditTool(), {"filePath": "src/a.py", "oldString": "x = 1", "newString": "x = 2"}, ctx)
    await run_tool(WriteTool(), {"filePath": "src/b.py", "content": "y = 1\n"}, ctx)
    asks = {(a.permission, a.patterns[0]): a.always for a in recorder.asks}
    assert asks[("read", "src/a.py")] == ["src/a.py"]
    assert asks[("edit", "src/a.py")] == ["src/a.py"]
    assert asks[("edit", "src/b.py")] == ["src/b.py"]
