"""The apply_patch tool over a real project folder: one dialog per file, all or nothing, and which
models are offered it instead of edit/write."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PermissionRejectedError, ToolError
from core.llm.catalog import edits_with_patch, family_of
from core.permission.request import PermissionAsk
from core.tools.apply_patch import ApplyPatchTool, offered_edit_tools
from core.tools.context import ToolContext
from core.tools.registry import builtin_registry
from core.tools.runner import run_tool
from tests.unit.tools.harness import Recorder, text_of


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


async def apply(ctx: ToolContext, text: str) -> str:
    return (await run_tool(ApplyPatchTool(), {"input": text}, ctx)).output


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def snapshot(project: Path) -> dict[str, bytes]:
    return {p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*") if p.is_file()}


async def test_adds_updates_moves_and_deletes_in_one_call(
    ctx: ToolContext, project: Path, recorder: Recorder
) -> None:
    write(project / "app.py", "import os\n\ndef run():\n    print('hi')\n    return 0\n")
    write(project / "old.txt", "bye\n")
    write(project / "src/a.py", "A = 1\n")
    result = await run_tool(
        ApplyPatchTool(),
        {
            "input": patch(
                "*** Add File: greet.py",
                "+def greet():",
                "+    return 'hello'",
                "*** Update File: app.py",
                "@@ def run():",
                "-    print('hi')",
                "+    print(greet())",
                "     return 0",
                "*** Update File: src/a.py",
                "*** Move to: src/b.py",
                "@@",
                "-A = 1",
                "+B = 2",
                "*** Delete File: old.txt",
            )
        },
        ctx,
    )
    assert text_of(project / "greet.py") == "def greet():\n    return 'hello'\n"
    assert text_of(project / "app.py") == "import os\n\ndef run():\n    print(greet())\n    return 0\n"
    assert text_of(project / "src/b.py") == "B = 2\n"
    assert not (project / "src/a.py").exists() and not (project / "old.txt").exists()
    assert result.output.splitlines()[:6] == [
        "Applied the patch:",
        "A greet.py",
        "M app.py",
        "D src/a.py",
        "A src/b.py",
        "D old.txt",
    ]
    # One edit dialog per file, each with its diff; the proposals are what was written.
    assert [(a.permission, a.patterns, a.title) for a in recorder.asks] == [
        ("edit", ["greet.py"], "Create greet.py"),
        ("edit", ["app.py"], "Patch app.py"),
        ("edit", ["src/a.py"], "Delete src/a.py"),
        ("edit", ["src/b.py"], "Create src/b.py"),
        ("edit", ["old.txt"], "Delete old.txt"),
    ]
    assert "+    print(greet())\n" in recorder.asks[1].metadata["diff"]
    assert recorder.asks[2].proposal is None and "-A = 1\n" in recorder.asks[2].metadata["diff"]
    assert (result.metadata["additions"], result.metadata["deletions"]) == (4, 3)


FAILING = [
    (
        "second file's hunk does not fit",
        patch("*** Update File: a.py", "-a = 1", "+a = 2", "*** Update File: b.py", "@@", "-nope", "+x"),
        "Hunk 1 of b.py does not apply",
    ),
    (
        "added file exists",
        patch("*** Update File: a.py", "-a = 1", "+a = 2", "*** Add File: b.py", "+x"),
        "b.py already exists",
    ),
    (
        "deleted file missing",
        patch("*** Update File: a.py", "-a = 1", "+a = 2", "*** Delete File: gone.py"),
        "gone.py",
    ),
    ("updated file missing", patch("*** Update File: nothere.py", "-x", "+y"), "nothere.py"),
    ("move onto a file", patch("*** Update File: a.py", "*** Move to: b.py"), "b.py already exists"),
    (
        "same file twice",
        patch("*** Update File: a.py", "-a = 1", "+a = 2", "*** Delete File: a.py"),
        "appears twice",
    ),
    ("a directory", patch("*** Update File: pkg", "-x", "+y"), "is a directory"),
    ("not UTF-8", patch("*** Update File: bin.dat", "-x", "+y"), "not a UTF-8 text file"),
    ("malformed", patch("*** Update File: a.py", "?a"), "Patch line 3"),
]


@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in FAILING], ids=[n for n, _, _ in FAILING])
async def test_a_patch_that_does_not_apply_changes_no_file(
    ctx: ToolContext, project: Path, recorder: Recorder, text: str, message: str
) -> None:
    write(project / "a.py", "a = 1\n")
    write(project / "b.py", "b = 1\n")
    (project / "pkg").mkdir()
    (project / "bin.dat").write_bytes(b"\xff\xfe\x00x")
    before = snapshot(project)
    with pytest.raises(ToolError) as caught:
        await apply(ctx, text)
    assert message in str(caught.value)
    assert snapshot(project) == before
    assert recorder.asks == []  # nothing was asked: the patch was checked first


async def test_a_rejected_dialog_writes_no_file(ctx: ToolContext, project: Path) -> None:
    write(project / "a.py", "a = 1\n")
    asked: list[str] = []

    async def second_rejected(request: PermissionAsk) -> None:
        asked.append(request.patterns[0])
        if len(asked) == 2:
            raise PermissionRejectedError("no")

    ctx.ask = second_rejected
    with pytest.raises(PermissionRejectedError):
        await apply(ctx, patch("*** Update File: a.py", "-a = 1", "+a = 2", "*** Add File: c.py", "+c"))
    assert asked == ["a.py", "c.py"]
    assert text_of(project / "a.py") == "a = 1\n" and not (project / "c.py").exists()


async def test_the_users_version_of_a_proposal_is_written_and_reported(
    ctx: ToolContext, project: Path
) -> None:
    write(project / "a.py", "a = 1\n")

    async def user_edits(request: PermissionAsk) -> None:
        assert request.proposal is not None
        request.proposal.edited = "a = 3\n"
        request.proposal.approved = True

    ctx.ask = user_edits
    output = await apply(ctx, patch("*** Update File: a.py", "-a = 1", "+a = 2"))
    assert text_of(project / "a.py") == "a = 3\n"
    assert "a = 3" in output and "a.py" in output.split("Applied the patch:")[1]


async def test_line_endings_and_byte_order_mark_are_kept(ctx: ToolContext, project: Path) -> None:
    (project / "w.txt").write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    await apply(ctx, patch("*** Update File: w.txt", " one", "-two", "+TWO"))
    assert (project / "w.txt").read_bytes() == "\ufeffone\r\nTWO\r\nthree\r\n".encode()


async def test_a_user_change_during_the_dialog_blocks_a_delete(ctx: ToolContext, project: Path) -> None:
    write(project / "a.py", "a = 1\n")

    async def user_types(request: PermissionAsk) -> None:
        write(project / "a.py", "a = 1\nmine = True\n")

    ctx.ask = user_types
    with pytest.raises(ToolError, match=r"The user changed a\.py"):
        await apply(ctx, patch("*** Delete File: a.py"))
    assert text_of(project / "a.py") == "a = 1\nmine = True\n"


async def test_outside_the_worktree_asks_external_directory_first(
    ctx: ToolContext, tmp_path: Path, recorder: Recorder
) -> None:
    target = tmp_path / "out" / "n.txt"
    await apply(ctx, patch(f"*** Add File: {target}", "+n"))
    assert recorder.kinds() == ["external_directory", "edit"]
    assert text_of(target) == "n\n"


FAMILIES = [
    ("openai", "gpt-5", True),
    ("openai", "gpt-5-codex", True),
    ("openai", "codex-mini-latest", True),
    ("openrouter", "openai/o4-mini", True),
    ("openai", "gpt-4.1", False),
    ("anthropic", "claude-sonnet-4-5", False),
    ("gemini", "gemini-2.5-pro", False),
    ("ollama", "qwen3-coder", False),
]


@pytest.mark.parametrize(("provider", "model", "patch_family"), FAMILIES)
def test_which_models_edit_with_patches(provider: str, model: str, patch_family: bool) -> None:
    tools = {t.id: t for t in builtin_registry().all()}
    offered = offered_edit_tools(tools, edits_with_patch(family_of(provider, model)))
    edit_tools = sorted(k for k in offered if k in ("edit", "write", "apply_patch"))
    assert edit_tools == (["apply_patch"] if patch_family else ["edit", "write"])
    assert {"read", "bash", "grep"} <= set(offered)


def test_a_patch_model_without_apply_patch_keeps_edit_and_write() -> None:
    # apply_patch switched off for the prompt (or hidden by a rule): the model still can edit.
    tools = {t.id: t for t in builtin_registry().all() if t.id != "apply_patch"}
    assert {"edit", "write"} <= set(offered_edit_tools(tools, patch=True))


async def test_a_patch_touching_a_file_another_writer_holds_writes_none(
    ctx: ToolContext, project: Path
) -> None:
    write(project / "mine.py", "x = 1\n")
    write(project / "held.py", "y = 1\n")
    before = snapshot(project)
    claimed: list[list[Path]] = []

    def claim(paths: object) -> None:  # as core.session.claims refuses a file a sub-agent holds
        claimed.append(list(paths))  # type: ignore[call-overload]
        if project / "held.py" in claimed[-1]:
            raise ToolError("held.py is being changed by the sub-agent @general")

    ctx.claim = claim
    text = patch(
        "*** Update File: mine.py",
        "@@",
        "-x = 1",
        "+x = 2",
        "*** Update File: held.py",
        "@@",
        "-y = 1",
        "+y = 2",
    )
    with pytest.raises(ToolError, match=r"held\.py is being changed"):
        await apply(ctx, text)
    assert claimed == [[project / "mine.py", project / "held.py"]]  # asked once, for both, first
    assert snapshot(project) == before
