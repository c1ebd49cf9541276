"""The read tool hands PDFs to the model as attachments, like images."""

from __future__ import annotations

import base64
from pathlib import Path

from core.tools.context import ToolContext
from core.tools.read import ReadTool
from core.tools.runner import run_tool

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


async def test_the_read_tool_attaches_a_pdf_for_the_model(ctx: ToolContext, project: Path) -> None:
    (project / "spec.pdf").write_bytes(PDF_BYTES)
    result = await run_tool(ReadTool(), {"filePath": str(project / "spec.pdf")}, ctx)
    [part] = result.attachments or []
    assert (
        part.mime == "application/pdf"
        and part.url == "data:application/pdf;base64," + base64.b64encode(PDF_BYTES).decode()
    )
    assert "attached" in result.output
