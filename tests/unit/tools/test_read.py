"""The read tool: numbering, paging, long lines, binaries, images, missing files, permissions."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.read import ReadTool
from core.tools.runner import run_tool
from tests.unit.tools.harness import Recorder

# The smallest valid PNG: 1x1 transparent pixel.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


async def read(ctx: ToolContext, **args: object) -> str:
    return (await run_tool(ReadTool(), dict(args), ctx)).output


async def test_lines_are_numbered_and_the_end_is_announced(
    ctx: ToolContext, project: Path, recorder: Recorder
) -> None:
    (project / "a.py").write_text("first\r\nsecond\n\nfourth\n")
    out = await read(ctx, filePath="a.py")
    assert out == "00001| first\n00002| second\n00003| \n00004| fourth\n\n(End of file: 4 lines.)"
    assert recorder.kinds() == ["read"]
    assert recorder.asks[0].patterns == ["a.py"]


async def test_offset_and_limit_page_through_the_file(ctx: ToolContext, project: Path) -> None:
    (project / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await read(ctx, filePath=str(project / "n.txt"), offset=3, limit=4)
    body, note = out.split("\n\n")
    assert body.splitlines() == ["00004| line 4", "00005| line 5", "00006| line 6", "00007| line 7"]
    assert "Use offset=7 to read on" in note and "of 10" in note


async def test_offset_past_the_end_is_an_error(ctx: ToolContext, project: Path) -> None:
    (project / "n.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match="past the end of the file, which has 2 lines"):
        await read(ctx, filePath="n.txt", offset=2)


async def test_default_limit_is_2000_lines(ctx: ToolContext, project: Path) -> None:
    (project / "big.txt").write_text("x\n" * 2500)
    out = await read(ctx, filePath="big.txt")
    assert out.count("| x") == 2000
    assert "Use offset=2000" in out


async def test_output_stops_at_the_byte_budget(ctx: ToolContext, project: Path) -> None:
    ctx.max_bytes = 1000
    (project / "wide.txt").write_text(("y" * 90 + "\n") * 50)
    out = await read(ctx, filePath="wide.txt")
    assert out.count("| y") == 10
    assert "output limit of 1000 bytes" in out and "offset=10" in out


async def test_long_lines_are_cut_with_a_marker(ctx: ToolContext, project: Path) -> None:
    (project / "min.js").write_text("z" * 2500 + "\nshort\n")
    out = await read(ctx, filePath="min.js")
    first = out.splitlines()[0]
    assert first == "00001| " + "z" * 2000 + "... [line cut: 500 more characters]"
    assert "00002| short" in out


async def test_empty_file(ctx: ToolContext, project: Path) -> None:
    (project / "empty.txt").write_text("")
    assert await read(ctx, filePath="empty.txt") == "(The file is empty.)"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("lib.so", b"ELF", "extension"),
        ("blob.txt", b"abc\x00def", "NUL bytes"),
        ("latin.txt", "café".encode("latin-1") + b" more", "not valid UTF-8"),
    ],
)
async def test_binary_files_are_refused(
    ctx: ToolContext, project: Path, name: str, data: bytes, reason: str
) -> None:
    (project / name).write_bytes(data)
    with pytest.raises(ToolError, match=f"binary file.*{reason}"):
        await read(ctx, filePath=name)


async def test_images_come_back_as_attachments(ctx: ToolContext, project: Path) -> None:
    (project / "dot.png").write_bytes(PNG)
    result = await run_tool(ReadTool(), {"filePath": "dot.png"}, ctx)
    assert result.attachments is not None and len(result.attachments) == 1
    part = result.attachments[0]
    assert part.mime == "image/png" and part.filename == "dot.png"
    assert part.url == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert part.sessionID == "ses_test" and part.messageID == "msg_test"
    assert "Image read" in result.output


async def test_missing_file_suggests_similar_names(ctx: ToolContext, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "config.py").write_text("")
    (project / "src" / "config_test.py").write_text("")
    (project / "src" / "other.md").write_text("")
    with pytest.raises(ToolError) as info:
        await read(ctx, filePath="src/config.ts")
    message = str(info.value)
    assert message.startswith(f"File not found: {project / 'src' / 'config.ts'}")
    assert "Did you mean" in message and str(project / "src" / "config.py") in message
    assert "other.md" not in message


async def test_missing_file_without_neighbours_has_no_suggestions(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as info:
        await read(ctx, filePath="nowhere/thing.txt")
    assert "Did you mean" not in str(info.value)


async def test_directory_is_refused_with_a_pointer_to_list(ctx: ToolContext, project: Path) -> None:
    (project / "pkg").mkdir()
    with pytest.raises(ToolError, match="list tool"):
        await read(ctx, filePath="pkg")


async def test_outside_the_worktree_asks_for_the_external_directory_first(
    ctx: ToolContext, tmp_path: Path, recorder: Recorder
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "notes.txt").write_text("hello\n")
    out = await read(ctx, filePath=str(outside / "notes.txt"))
    assert "00001| hello" in out
    assert recorder.kinds() == ["external_directory", "read"]
    external = recorder.asks[0]
    assert external.patterns == [f"{outside}/*"] and external.always == [f"{outside}/*"]
    assert external.metadata["filepath"] == str(outside / "notes.txt")
    assert recorder.asks[1].patterns == [str(outside / "notes.txt")]


async def test_dotdot_and_symlinks_are_resolved_before_the_check(
    ctx: ToolContext, project: Path, tmp_path: Path, recorder: Recorder
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("k\n")
    (project / "link").symlink_to(secret)
    await read(ctx, filePath="link/key.txt")
    await read(ctx, filePath="../secret/key.txt")
    assert recorder.kinds() == ["external_directory", "read", "external_directory", "read"]


async def test_saved_tool_outputs_are_readable_without_an_external_ask(
    ctx: ToolContext, recorder: Recorder
) -> None:
    ctx.output_dir.mkdir(parents=True)
    (ctx.output_dir / "call_1.txt").write_text("saved\n")
    await read(ctx, filePath=str(ctx.output_dir / "call_1.txt"))
    assert recorder.kinds() == ["read"]


async def test_a_denied_permission_propagates(ctx: ToolContext, project: Path) -> None:
    from core.errors import PermissionDeniedError
    from core.permission.request import PermissionAsk

    async def deny(request: PermissionAsk) -> None:
        raise PermissionDeniedError(f"denied {request.permission}")

    ctx.ask = deny
    (project / "a.txt").write_text("x")
    with pytest.raises(PermissionDeniedError, match="denied read"):
        await read(ctx, filePath="a.txt")
