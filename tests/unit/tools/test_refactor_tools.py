"""rename, code_actions, organize_imports and format against a fake editor whose answers are edits:
the edits land all or nothing, one permission for every file, and the diagnostics delta reads what
the editor reports before and after."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.editor import (
    EDITOR_QUERIES,
    EditorActionEdit,
    EditorCodeAction,
    EditorDiagnostic,
    EditorFileEdit,
    EditorLocation,
    EditorQuery,
    EditorTextEdit,
)
from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.permission.rules import Rule, disabled
from core.tools.context import ToolContext
from core.tools.diagnostics_delta import MAX_WATCHED
from core.tools.editor import FileParams
from core.tools.refactor import apply_text_edits
from core.tools.refactor_tools import (
    ActionParams,
    CodeActionsTool,
    FormatParams,
    FormatTool,
    OrganizeImportsTool,
    RenameParams,
    RenameTool,
)
from core.workspace import EditContext, ForwardingWorkspace
from tests.unit.tools.harness import Recorder, text_of

Problems = Callable[[Path, str], list[EditorDiagnostic]]


def no_problems(path: Path, text: str) -> list[EditorDiagnostic]:
    return []


@dataclass
class FakeEditor:
    """Answers with fixed edits and actions; diagnostics come from each file's text on disk."""

    renames: list[EditorFileEdit] | Exception = field(default_factory=list)
    actions: list[EditorCodeAction] = field(default_factory=list)
    resolved: dict[str, EditorActionEdit | None] = field(default_factory=dict)
    formatted: list[EditorTextEdit] = field(default_factory=list)
    problems: Problems = no_problems
    command_changes: list[Path] = field(default_factory=list)
    queries: frozenset[EditorQuery] = frozenset(EDITOR_QUERIES)
    asked: list[tuple[str, Any]] = field(default_factory=list)
    read: set[Path] = field(default_factory=set)  # files whose diagnostics were read

    def supported(self) -> frozenset[EditorQuery]:
        return self.queries

    async def definition(self, at: EditorLocation) -> list[EditorLocation]:
        return []

    async def references(self, at: EditorLocation) -> list[EditorLocation]:
        return []

    async def hover(self, at: EditorLocation) -> str:
        return ""

    async def document_symbols(self, path: Path) -> list[Any]:
        return []

    async def workspace_symbols(self, query: str) -> list[Any]:
        return []

    async def diagnostics(self, path: Path) -> list[EditorDiagnostic]:
        self.read.add(path)
        return self.problems(path, text_of(path))

    async def rename(self, at: EditorLocation, new_name: str) -> list[EditorFileEdit]:
        self.asked.append(("rename", (at, new_name)))
        if isinstance(self.renames, Exception):
            raise self.renames
        return self.renames

    async def code_actions(
        self, path: Path, lines: tuple[int, int], only: tuple[str, ...] = ()
    ) -> list[EditorCodeAction]:
        self.asked.append(("codeActions", (path, lines, only)))
        return self.actions

    async def code_action(
        self, path: Path, lines: tuple[int, int], title: str, only: tuple[str, ...] = ()
    ) -> EditorActionEdit | None:
        self.asked.append(("codeAction", (path, lines, title, only)))
        return self.resolved.get(title or only[0])

    async def run_command(self, token: str) -> list[Path]:
        self.asked.append(("runCommand", token))
        for path in self.command_changes:
            replace_in(path, "\n", "\n// by the command\n")
        return self.command_changes

    async def format(self, path: Path, lines: tuple[int, int] | None) -> list[EditorTextEdit]:
        self.asked.append(("format", (path, lines)))
        return self.formatted


def replace_in(path: Path, old: str, new: str) -> None:
    path.write_text(text_of(path).replace(old, new, 1))


def texts(root: Path) -> dict[Path, str]:
    return {p: text_of(p) for p in root.iterdir()}


def edit(line: int, start: int, end: int, text: str) -> EditorTextEdit:
    return EditorTextEdit((line, start), (line, end), text)


@pytest.fixture
def three(project: Path) -> Path:
    """``total`` defined in lib.ts, used in a.ts and b.ts; b.ts has a local ``sum`` already."""
    (project / "lib.ts").write_text("export function total(xs: number[]) {\n  return 0;\n}\n")
    (project / "a.ts").write_text("import { total } from './lib';\ntotal([1]);\n")
    (project / "b.ts").write_text("import { total } from './lib';\nconst sum = 3;\ntotal([sum]);\n")
    return project


def rename_edits(root: Path) -> list[EditorFileEdit]:
    return [
        EditorFileEdit(root / "lib.ts", (edit(0, 16, 21, "sum"),)),
        EditorFileEdit(root / "a.ts", (edit(0, 9, 14, "sum"), edit(1, 0, 5, "sum"))),
        EditorFileEdit(root / "b.ts", (edit(0, 9, 14, "sum"), edit(2, 0, 5, "sum"))),
    ]


def clash(path: Path, text: str) -> list[EditorDiagnostic]:
    """b.ts errors once its import of sum meets its local sum; a.ts has a warning that goes away."""
    out = []
    if path.name == "b.ts" and "import { sum }" in text:
        out.append(EditorDiagnostic(EditorLocation(path, 1, 6), "error", "Duplicate identifier 'sum'.", "ts"))
    if path.name == "a.ts" and "total" in text:
        out.append(EditorDiagnostic(EditorLocation(path, 1, 0), "warning", "'total' is deprecated.", "ts"))
    out.append(EditorDiagnostic(EditorLocation(path, 0, 0), "hint", "unchanged hint", "ts"))
    return out


def edits_asked(recorder: Recorder) -> list[PermissionAsk]:
    return [a for a in recorder.asks if a.permission == "edit"]


def rename(symbol: str = "total", new: str = "sum", line: int = 1, file: str = "lib.ts") -> RenameParams:
    return RenameParams(filePath=file, line=line, symbol=symbol, newName=new)


async def test_a_rename_changes_every_file_in_one_step_and_reports_the_diagnostics_delta(
    ctx: ToolContext, three: Path, recorder: Recorder
) -> None:
    editor = FakeEditor(renames=rename_edits(three), problems=clash)
    ctx.editor = editor
    result = await RenameTool().execute(rename(), ctx)
    assert text_of(three / "lib.ts").startswith("export function sum(xs")
    assert text_of(three / "a.ts") == "import { sum } from './lib';\nsum([1]);\n"
    assert text_of(three / "b.ts") == "import { sum } from './lib';\nconst sum = 3;\nsum([sum]);\n"
    # One dialog names every file and shows one diff of all of them.
    [ask] = edits_asked(recorder)
    assert (ask.permission, ask.patterns, ask.title) == (
        "edit",
        ["a.ts", "b.ts", "lib.ts"],
        "Rename total to sum",
    )
    assert "after" not in ask.metadata
    assert [line for line in ask.metadata["diff"].splitlines() if line.startswith("+++")] == [
        "+++ b/a.ts",
        "+++ b/b.ts",
        "+++ b/lib.ts",
    ]
    assert result.output.splitlines() == [
        "Renamed total to sum: 5 edits in 3 files (a.ts, b.ts, lib.ts).",
        "",
        "Diagnostics after the edit:",
        "new: b.ts:2: error: Duplicate identifier 'sum'. [ts]",
        "fixed: a.ts:2: warning: 'total' is deprecated. [ts]",
        "Fix the new problems if this edit caused them.",
    ]
    assert result.metadata["diagnostics"]["new"] == ["b.ts:2: Duplicate identifier 'sum'."]
    assert editor.asked == [("rename", (EditorLocation(three / "lib.ts", 0, 16), "sum"))]


@pytest.mark.parametrize("name", ["1total", "sum up", "sum-up", "sum()", "a.b", "x;y", "$"])
async def test_a_rename_to_an_invalid_name_is_refused_before_the_editor_is_asked(
    ctx: ToolContext, three: Path, name: str
) -> None:
    editor = FakeEditor(renames=rename_edits(three))
    ctx.editor = editor
    if name == "$":  # a lone $ is a name in JavaScript
        await RenameTool().execute(rename(new=name), ctx)
        return
    with pytest.raises(ToolError, match=r"is not a valid name.*Nothing was renamed"):
        await RenameTool().execute(rename(new=name), ctx)
    assert editor.asked == []
    assert text_of(three / "a.ts").startswith("import { total }")


@pytest.mark.parametrize("name", ["naïve", "_x", "$el", "Sum2"])
async def test_names_of_letters_digits_underscore_and_dollar_are_valid(
    ctx: ToolContext, three: Path, name: str
) -> None:
    ctx.editor = FakeEditor(renames=[EditorFileEdit(three / "lib.ts", (edit(0, 16, 21, name),))])
    await RenameTool().execute(rename(new=name), ctx)
    assert text_of(three / "lib.ts").startswith(f"export function {name}(")


class FailingOn(ForwardingWorkspace):
    """The editor refuses the write of one file."""

    def __init__(self, inner: Any, refused: Path) -> None:
        super().__init__(inner)
        self.refused = refused
        self.labels: list[str] = []

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        self.labels.append(f"{path.name}: {ctx.label}")
        if path == self.refused:
            raise ToolError("the editor refused the edit of b.ts; the file is unchanged.")
        await super().write_bytes(path, data, ctx)


async def test_an_editor_refusing_one_file_puts_back_the_files_already_written(
    ctx: ToolContext, three: Path
) -> None:
    originals = texts(three)
    failing = FailingOn(ctx.workspace, three / "b.ts")
    ctx.workspace = failing
    ctx.editor = FakeEditor(renames=rename_edits(three))
    with pytest.raises(ToolError, match=r"refused the edit of b.ts.*1 file.*put back. Nothing of this edit"):
        await RenameTool().execute(rename(), ctx)
    assert texts(three) == originals
    assert failing.labels == [
        "a.ts: agent: rename total to sum",
        "b.ts: agent: rename total to sum",
        "a.ts: agent: undo rename total to sum",
    ]


def typing_in(path: Path, old: str, new: str) -> Callable[[PermissionAsk], Any]:
    async def ask(request: PermissionAsk) -> None:
        if request.permission == "edit":  # the user types while the edit's dialog waits
            replace_in(path, old, new)

    return ask


async def test_a_file_changed_in_the_renamed_lines_while_asking_fails_with_nothing_written(
    ctx: ToolContext, three: Path
) -> None:
    ctx.ask = typing_in(three / "b.ts", "total([sum]);", "total([sum, 2]);")
    ctx.editor = FakeEditor(renames=rename_edits(three))
    with pytest.raises(ToolError, match=r"b.ts changed while this edit waited.*no file was written"):
        await RenameTool().execute(rename(), ctx)
    assert text_of(three / "a.ts").startswith("import { total }")
    assert text_of(three / "lib.ts").startswith("export function total(")


async def test_typing_elsewhere_in_a_file_while_asking_is_kept_under_the_rename(
    ctx: ToolContext, three: Path
) -> None:
    ctx.ask = typing_in(three / "lib.ts", "}\n", "}\n// the user's note\n")
    ctx.editor = FakeEditor(renames=rename_edits(three))
    await RenameTool().execute(rename(), ctx)
    assert (
        text_of(three / "lib.ts")
        == "export function sum(xs: number[]) {\n  return 0;\n}\n// the user's note\n"
    )


async def test_an_edit_that_no_longer_fits_the_file_changes_nothing(ctx: ToolContext, three: Path) -> None:
    stale = [*rename_edits(three)[:2], EditorFileEdit(three / "b.ts", (edit(7, 0, 5, "sum"),))]
    ctx.editor = FakeEditor(renames=stale)
    with pytest.raises(ToolError, match=r"reaches line 8 of b.ts, which has 4 lines: the file changed"):
        await RenameTool().execute(rename(), ctx)
    assert text_of(three / "a.ts").startswith("import { total }")


async def test_a_server_that_times_out_is_the_tool_error_and_nothing_changes(
    ctx: ToolContext, three: Path
) -> None:
    late = ToolError("the editor did not answer the rename query within 10 s")
    ctx.editor = FakeEditor(renames=late)
    with pytest.raises(ToolError, match=r"did not answer the rename query"):
        await RenameTool().execute(rename(), ctx)
    assert text_of(three / "lib.ts").startswith("export function total(")


async def test_nothing_to_rename_is_said_as_such(ctx: ToolContext, three: Path) -> None:
    ctx.editor = FakeEditor(renames=[])
    with pytest.raises(ToolError, match=r"rename nothing for 'total' on line 1 of lib.ts: no server"):
        await RenameTool().execute(rename(), ctx)


@pytest.mark.parametrize(
    ("queries", "tool", "params", "hint"),
    [
        (frozenset(), RenameTool(), rename(), "change them with edit instead"),
        (frozenset({"rename"}), FormatTool(), FormatParams(filePath="a.ts"), "with edit instead"),
        (frozenset({"format"}), CodeActionsTool(), ActionParams(filePath="a.ts", line=1), "with edit"),
        (frozenset({"format"}), OrganizeImportsTool(), FileParams(filePath="a.ts"), "with edit"),
    ],
)
async def test_a_tool_the_editor_cannot_answer_says_so(
    ctx: ToolContext, three: Path, queries: frozenset[EditorQuery], tool: Any, params: Any, hint: str
) -> None:
    ctx.editor = FakeEditor(queries=queries)
    with pytest.raises(
        ToolError, match=rf"{tool.id} is not available: the connected editor does not answer .*{hint}"
    ):
        await tool.execute(params, ctx)


def test_the_refactoring_tools_answer_to_edit_so_a_denied_edit_hides_them() -> None:
    tools = {t.id: t for t in (RenameTool(), CodeActionsTool(), OrganizeImportsTool(), FormatTool())}
    assert disabled(tools, [Rule("edit", "*", "deny")]) == set(tools)


# --- code actions -----------------------------------------------------------------------------

IMPORT_FIX = EditorCodeAction("Add import from './lib'", "quickfix", True, "", ("Cannot find name 'total'.",))
EXTRACT = EditorCodeAction("Extract to function", "refactor.extract.function")
OFF = EditorCodeAction("Move to a new file", "refactor.move", disabled="Selection is not a statement")


@pytest.fixture
def missing(project: Path) -> Path:
    (project / "lib.ts").write_text("export function total(xs: number[]) {\n  return 0;\n}\n")
    (project / "c.ts").write_text("total([1]);\n")
    return project


def import_fix(root: Path) -> EditorActionEdit:
    add = EditorTextEdit((0, 0), (0, 0), "import { total } from './lib';\n\n")
    return EditorActionEdit(IMPORT_FIX.title, "quickfix", (EditorFileEdit(root / "c.ts", (add,)),))


def missing_name(path: Path, text: str) -> list[EditorDiagnostic]:
    if path.name == "c.ts" and "import" not in text:
        return [EditorDiagnostic(EditorLocation(path, 0, 0), "error", "Cannot find name 'total'.", "ts")]
    return []


async def test_code_actions_are_listed_with_kind_preference_fixes_and_why_one_is_off(
    ctx: ToolContext, missing: Path
) -> None:
    ctx.editor = editor = FakeEditor(actions=[IMPORT_FIX, EXTRACT, OFF])
    result = await CodeActionsTool().execute(ActionParams(filePath="c.ts", line=1), ctx)
    assert result.output.splitlines() == [
        "Code actions at c.ts:1 (apply one with apply=<title or kind>):",
        "- Add import from './lib' [quickfix] (preferred) — fixes: Cannot find name 'total'.",
        "- Extract to function [refactor.extract.function]",
        "- Move to a new file [refactor.move] — unavailable: Selection is not a statement",
    ]
    assert editor.asked == [("codeActions", (missing / "c.ts", (0, 0), ()))]


@pytest.mark.parametrize("apply", [IMPORT_FIX.title, "quickfix"])
async def test_a_quick_fix_chosen_by_title_or_kind_is_resolved_applied_and_checked(
    ctx: ToolContext, missing: Path, recorder: Recorder, apply: str
) -> None:
    ctx.editor = editor = FakeEditor(
        actions=[EXTRACT, IMPORT_FIX], resolved={IMPORT_FIX.title: import_fix(missing)}, problems=missing_name
    )
    result = await CodeActionsTool().execute(ActionParams(filePath="c.ts", line=1, apply=apply), ctx)
    assert text_of(missing / "c.ts") == "import { total } from './lib';\n\ntotal([1]);\n"
    assert editor.asked[1] == ("codeAction", (missing / "c.ts", (0, 0), IMPORT_FIX.title, ()))
    assert edits_asked(recorder)[0].title == "Apply the code action “Add import from './lib'”"
    assert edits_asked(recorder)[0].metadata["after"] == text_of(missing / "c.ts")  # one file: previewed
    assert result.output.splitlines()[0] == "Applied “Add import from './lib'”: changed 1 file (c.ts)."
    assert "fixed: c.ts:1: error: Cannot find name 'total'. [ts]" in result.output


@pytest.mark.parametrize(
    ("actions", "resolved", "apply", "error"),
    [
        ([IMPORT_FIX], {}, IMPORT_FIX.title, "“Add import from './lib'” is no longer offered at c.ts:1"),
        ([EXTRACT], {}, "Add import", "no code action titled or of kind 'Add import' at c.ts:1. Offered:"),
        ([], {}, "quickfix", "no code action titled or of kind 'quickfix' at c.ts:1. None is offered"),
        ([OFF], {}, "refactor.move", "“Move to a new file” cannot be applied now: Selection is not"),
    ],
    ids=["gone-by-then", "unknown-title", "none-offered", "disabled"],
)
async def test_an_action_that_cannot_be_applied_is_a_clear_error_and_nothing_changes(
    ctx: ToolContext,
    missing: Path,
    actions: list[EditorCodeAction],
    resolved: dict[str, EditorActionEdit | None],
    apply: str,
    error: str,
) -> None:
    ctx.editor = FakeEditor(actions=actions, resolved=resolved)
    with pytest.raises(ToolError) as err:
        await CodeActionsTool().execute(ActionParams(filePath="c.ts", line=1, apply=apply), ctx)
    assert error in str(err.value)
    assert text_of(missing / "c.ts") == "total([1]);\n"


@pytest.mark.parametrize("with_edit", [False, True])
async def test_an_actions_command_is_asked_for_with_its_edit_run_and_what_it_changed_named(
    ctx: ToolContext, missing: Path, recorder: Recorder, with_edit: bool
) -> None:
    edits = import_fix(missing).edits if with_edit else ()
    action = EditorActionEdit("Fix all", "source.fixAll", edits, "Fix all problems", "tok-1")
    ctx.editor = editor = FakeEditor(
        actions=[EditorCodeAction("Fix all", "source.fixAll")],
        resolved={"Fix all": action},
        command_changes=[missing / "c.ts"],
    )
    params = ActionParams(filePath="c.ts", line=1, apply="source.fixAll")
    result = await CodeActionsTool().execute(params, ctx)
    [ask] = edits_asked(recorder)  # one dialog for the edit and the command
    assert ask.title.startswith("Apply the code action “Fix all” and run its command “Fix all problems”")
    assert ("diff" in ask.metadata) == with_edit
    assert editor.asked[-1] == ("runCommand", "tok-1")
    said = "Its command “Fix all problems” ran in the editor and changed c.ts (saved; in the review)."
    assert said in result.output, result.output
    assert result.metadata["commandChanged"] == [str(missing / "c.ts")]


async def test_a_command_that_changes_nothing_is_said_as_such(ctx: ToolContext, missing: Path) -> None:
    action = EditorActionEdit("Log", "quickfix", (), "telemetry", "tok-2")
    ctx.editor = FakeEditor(actions=[EditorCodeAction("Log", "quickfix")], resolved={"Log": action})
    result = await CodeActionsTool().execute(ActionParams(filePath="c.ts", line=1, apply="Log"), ctx)
    assert result.output.splitlines() == [
        "Applied “Log” (its edit changes no text).",
        "Its command “telemetry” ran in the editor and changed no file.",
    ]


async def test_organize_imports_applies_the_source_action_or_says_none_is_offered(
    ctx: ToolContext, missing: Path
) -> None:
    sort = EditorTextEdit((0, 0), (1, 0), "")
    action = EditorActionEdit(
        "Organize Imports", "source.organizeImports", (EditorFileEdit(missing / "c.ts", (sort,)),)
    )
    ctx.editor = editor = FakeEditor(resolved={"source.organizeImports": action})
    await OrganizeImportsTool().execute(FileParams(filePath="c.ts"), ctx)
    assert editor.asked == [("codeAction", (missing / "c.ts", (0, 0), "", ("source.organizeImports",)))]
    assert text_of(missing / "c.ts") == ""
    ctx.editor = FakeEditor()
    with pytest.raises(
        ToolError, match=r"no language server in the editor offers to organize the imports of lib.ts"
    ):
        await OrganizeImportsTool().execute(FileParams(filePath="lib.ts"), ctx)


# --- format -------------------------------------------------------------------------------------


async def test_format_applies_the_editors_edits_for_a_file_or_a_range(
    ctx: ToolContext, missing: Path
) -> None:
    ctx.editor = editor = FakeEditor(formatted=[edit(1, 0, 2, "    ")])
    result = await FormatTool().execute(FormatParams(filePath="lib.ts"), ctx)
    assert text_of(missing / "lib.ts") == "export function total(xs: number[]) {\n    return 0;\n}\n"
    assert result.output.startswith("Formatted lib.ts with the editor's formatter (+1 -1 lines).")
    await FormatTool().execute(FormatParams(filePath="lib.ts", line=2, endLine=3), ctx)
    assert editor.asked[-1] == ("format", (missing / "lib.ts", (1, 2)))


async def test_format_with_nothing_to_change_and_bad_ranges(ctx: ToolContext, missing: Path) -> None:
    ctx.editor = FakeEditor(formatted=[])
    result = await FormatTool().execute(FormatParams(filePath="lib.ts"), ctx)
    assert result.output == "lib.ts is already formatted as the editor's formatter wants."
    with pytest.raises(ToolError, match=r"lines 2-9 are not a range of lib.ts"):
        await FormatTool().execute(FormatParams(filePath="lib.ts", line=2, endLine=9), ctx)
    with pytest.raises(ToolError, match=r"endLine needs line"):
        await FormatTool().execute(FormatParams(filePath="lib.ts", endLine=2), ctx)


# --- applying text edits ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "edits", "expected"),
    [
        ("abc\ndef\n", [edit(0, 1, 2, "X"), edit(1, 0, 3, "")], "aXc\n\n"),
        ("abc\r\ndef\r\n", [edit(0, 0, 99, "line")], "line\r\ndef\r\n"),  # past the end: the line's end
        ("abc\n", [EditorTextEdit((1, 0), (1, 0), "tail\n")], "abc\ntail\n"),
        ("abc", [EditorTextEdit((0, 3), (1, 0), "!")], "abc!"),  # the line after the last: the end
        ("a😀b\n", [edit(0, 2, 3, "c")], "a😀c\n"),  # columns are characters here
        ("ab\n", [edit(0, 1, 1, "1"), edit(0, 1, 1, "2")], "a12b\n"),  # inserts at one place keep order
    ],
)
def test_text_edits_apply_to_the_text_they_were_computed_for(
    text: str, edits: list[EditorTextEdit], expected: str
) -> None:
    assert apply_text_edits(text, edits, "f") == expected


@pytest.mark.parametrize(
    ("edits", "error"),
    [
        ([edit(5, 0, 1, "x")], "reaches line 6 of f, which has 2 lines"),
        ([edit(0, 0, 2, "x"), edit(0, 1, 3, "y")], "edits of f overlap"),
        ([EditorTextEdit((0, 3), (0, 1), "x")], "edits of f overlap"),
    ],
)
def test_text_edits_that_do_not_fit_are_refused(edits: list[EditorTextEdit], error: str) -> None:
    with pytest.raises(ToolError, match=error):
        apply_text_edits("abc\n", edits, "f")


# --- what the model sees ---------------------------------------------------------------------

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.mark.parametrize("tool", [RenameTool(), CodeActionsTool(), OrganizeImportsTool(), FormatTool()])
def test_the_refactoring_tool_specs_match_their_snapshots(tool: Any) -> None:
    rendered = json.dumps(tool.spec(), indent=2, ensure_ascii=False) + "\n"
    snapshot = SNAPSHOTS / f"{tool.id}.json"
    if os.environ.get("AGENTLS_UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(rendered, encoding="utf-8")
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"{tool.id}'s spec changed: regenerate if intended"
    )


async def test_the_delta_compares_the_first_files_of_a_wide_change_and_says_so(
    ctx: ToolContext, project: Path
) -> None:
    for n in range(MAX_WATCHED + 2):
        (project / f"f{n:02}.ts").write_text("old\n")
    edits = [EditorFileEdit(project / f"f{n:02}.ts", (edit(0, 0, 3, "new"),)) for n in range(MAX_WATCHED + 2)]
    (project / "lib.ts").write_text("export function old() {}\n")
    ctx.editor = editor = FakeEditor(renames=edits)
    result = await RenameTool().execute(
        RenameParams(filePath="lib.ts", line=1, symbol="old", newName="new"), ctx
    )
    assert f"(of the first {MAX_WATCHED} changed files; 2 more not compared)" in result.output
    assert len(editor.read) == MAX_WATCHED
