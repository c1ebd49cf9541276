"""The ``read`` tool: numbered lines of a text file, images as attachments."""

from __future__ import annotations

import base64

from pydantic import Field

from core.errors import ToolError
from core.ids import ascending
from core.message.models import FilePart
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.filetypes import attachable_mime, binary_reason

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000


class ReadParams(ToolParams):
    filePath: str = Field(description="The file to read: absolute, or relative to the working directory")
    offset: int = Field(0, ge=0, description="The 0-based line number to start reading from")
    limit: int = Field(DEFAULT_LIMIT, gt=0, description="The number of lines to read")


def number_line(index: int, line: str) -> str:
    """One output line: the 1-based number, a bar, the (possibly cut) text."""
    if len(line) > MAX_LINE_CHARS:
        line = f"{line[:MAX_LINE_CHARS]}... [line cut: {len(line) - MAX_LINE_CHARS} more characters]"
    return f"{index + 1:05d}| {line}"


def split_lines(text: str) -> list[str]:
    """The file's lines without their endings (``\\n`` or ``\\r\\n``); no phantom last line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


class ReadTool(Tool[ReadParams]):
    id = "read"
    Params = ReadParams
    read_only = True
    truncate = "none"  # limited by lines and bytes here, with an offset to continue from

    async def execute(self, params: ReadParams, ctx: ToolContext) -> ToolResult:
        path = paths.resolve(ctx, params.filePath)
        for request in paths.read_requests(path, ctx.worktree, ctx.output_dir):
            await ctx.ask(request)
        st = await ctx.workspace.stat(path)
        if not st.exists:
            raise ToolError(paths.not_found_message(path))
        if st.is_dir:
            raise ToolError(f"{path} is a directory, not a file. Use the list tool to see its entries.")
        try:
            data = await ctx.workspace.read_bytes(path)
        except FileNotFoundError as exc:
            raise ToolError(paths.not_found_message(path)) from exc
        title = paths.display(ctx, path)
        mime = attachable_mime(path)
        if mime is not None:
            return self._attach(ctx, title, mime, data)
        reason = binary_reason(path, data)
        if reason is not None:
            raise ToolError(f"Cannot read {path}: it is a binary file ({reason}).")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"Cannot read {path}: it is a binary file (it is not valid UTF-8 text).") from exc
        return self._text(ctx, params, title, split_lines(text))

    def _text(self, ctx: ToolContext, params: ReadParams, title: str, lines: list[str]) -> ToolResult:
        total = len(lines)
        if total == 0:
            return ToolResult(title, "(The file is empty.)", {"lines": 0, "truncated": False})
        if params.offset >= total:
            raise ToolError(
                f"offset {params.offset} is past the end of the file, which has {total} lines "
                f"(valid offsets: 0 to {total - 1})."
            )
        out: list[str] = []
        size = 0
        end = min(total, params.offset + params.limit)
        cut_by_bytes = False
        for index in range(params.offset, end):
            numbered = number_line(index, lines[index])
            size += len(numbered.encode("utf-8")) + 1
            if size > ctx.max_bytes and out:
                cut_by_bytes = True
                break
            out.append(numbered)
        last = params.offset + len(out)
        if last < total:
            why = f"output limit of {ctx.max_bytes} bytes" if cut_by_bytes else f"limit of {params.limit}"
            note = (
                f"(Showing lines {params.offset + 1}-{last} of {total}, stopped by the {why}. "
                f"Use offset={last} to read on.)"
            )
        else:
            note = f"(End of file: {total} lines.)"
        output = "\n".join(out) + "\n\n" + note
        metadata = {"lines": total, "truncated": last < total, "preview": "\n".join(lines[:20])}
        return ToolResult(title, output, metadata)

    def _attach(self, ctx: ToolContext, title: str, mime: str, data: bytes) -> ToolResult:
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        part = FilePart(
            id=ascending("prt"),
            sessionID=ctx.session_id,
            messageID=ctx.message_id,
            mime=mime,
            filename=title.rsplit("/", 1)[-1],
            url=url,
        )
        kind = "PDF" if mime == "application/pdf" else "Image"
        output = f"{kind} read: {title} ({mime}, {len(data)} bytes). It is attached for you to see."
        return ToolResult(title, output, {"mime": mime, "bytes": len(data)}, attachments=[part])
