"""Refactors by the language server the user runs in Neovim: a real headless Neovim with the plugin,
the real ``agentls serve``, the real typescript-language-server attached through ``vim.lsp``, and the
scripted fake model calling rename, code_actions and format. The edits land in the buffers as the
agent's own (reviewable, undoable as hunks), and each result carries the diagnostics delta."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.test_editor_queries import TOY_LS
from tests.tools import tool

FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["*.ts"]}\n',
    "lib.ts": "export function total(xs: number[]): number {\n  return xs.length;\n}\n\n"
    "export function average(xs: number[]): number {\n  return total(xs) / xs.length;\n}\n",
    "a.ts": "import { total } from './lib';\n\nexport const count = total([1, 2]);\n",
    # A call site the rename breaks: b.ts has its own `sum`, which the renamed import now collides with.
    "b.ts": "import { total } from './lib';\n\nconst sum = 3;\nexport const both = total([sum]);\n",
    "c.ts": "export const mean = average([1, 2, 3]);\n",
    "messy.ts": "export function f(x: number) {\nif (x) {\nreturn 1;\n}\nreturn 2;\n}\n",
    "zed.ts": "export const zed = 1;\n",
    "tidy.ts": "import { zed } from './zed';\nimport { average } from './lib';\n\n"
    "export const x = average([zed]);\n",
    "notes.txt": "total is the sum\n",
}
IMPORT_FIX = 'Add import from "./lib"'


def tool_results(nvim: Nvim, step: int) -> str:
    messages = nvim.model.requests[step].messages
    return str(messages[-1].get("content"))


def test_rename_code_actions_and_format_come_from_the_real_server_and_land_as_the_agents_edits(
    nvim: Nvim, tmp_path: Path
) -> None:
    for name, text in FILES.items():
        (nvim.project / name).write_text(text)
    nvim.extra_config["permission"]["edit"] = "allow"  # edits allowed by a rule are review hunks
    nvim.model.script(
        Turn.tool_call("organize_imports", {"filePath": "tidy.ts"}),
        Turn.tool_call("rename", {"filePath": "lib.ts", "line": 1, "symbol": "total", "newName": "sum"}),
        Turn.tool_call("code_actions", {"filePath": "c.ts", "line": 1}),
        Turn.tool_call("code_actions", {"filePath": "c.ts", "line": 1, "apply": IMPORT_FIX}),
        Turn.tool_call("format", {"filePath": "messy.ts"}),
        Turn.tool_call("rename", {"filePath": "notes.txt", "line": 1, "symbol": "total", "newName": "sum"}),
        Turn.text("Done."),
    )
    out = tmp_path / "out.json"
    tsls = json.dumps([tool("typescript-language-server"), "--stdio"])
    run = nvim.run("refactors.lua", timeout=180, AGENTLS_TEST_TSLS=tsls, AGENTLS_TEST_OUT=str(out)).check()
    seen = json.loads(out.read_text())
    report = run.stderr + json.dumps(seen, indent=1)

    organized = tool_results(nvim, 1)
    assert organized.startswith("Applied “Organize Imports”"), organized
    tidy = (
        "import { average } from './lib';\nimport { zed } from './zed';\n\nexport const x = average([zed]);"
    )
    assert seen["tidy"] == tidy, report

    renamed = tool_results(nvim, 2)
    assert renamed.startswith("Renamed total to sum:") and "3 files (a.ts, b.ts, lib.ts)" in renamed, renamed
    clash = "new: b.ts:1: error: Import declaration conflicts with local declaration of 'sum'. [typescript]"
    assert clash in renamed, renamed
    assert "new: b.ts:4: error: This expression is not callable." in renamed, renamed
    assert seen["renamed"]["a"] == FILES["a.ts"].replace("total", "sum").rstrip("\n"), report

    listing = tool_results(nvim, 3)
    assert f"- {IMPORT_FIX} [quickfix]" in listing, listing
    assert "fixes: Cannot find name 'average'." in listing, listing
    applied = tool_results(nvim, 4)
    assert f"Applied “{IMPORT_FIX}”: changed 1 file (c.ts)." in applied, applied
    assert "fixed: c.ts:1: error: Cannot find name 'average'." in applied, applied
    assert seen["c"].startswith('import { average } from "./lib";'), report

    formatted = tool_results(nvim, 5)
    assert formatted.startswith("Formatted messy.ts with the editor's formatter"), formatted
    three = "export function f(x: number) {\n   if (x) {\n      return 1;\n   }\n   return 2;\n}"
    assert seen["messy"] == three, report  # the buffer's shiftwidth, not the server's default 4

    nothing = tool_results(nvim, 6)
    assert "no language server attached to" in nothing and "notes.txt answers textDocument/rename" in nothing

    # One step, reviewable and undoable as hunks: undoing the rename's hunks restores every file.
    assert {"lib.ts", "a.ts", "b.ts"} <= set(seen["files"]), report
    assert seen["conflicts"] == 0, report
    assert seen["undone"]["a"] == FILES["a.ts"].rstrip("\n"), report
    assert seen["undone"]["b"] == FILES["b.ts"].rstrip("\n"), report
    assert "export function total(" in seen["undone"]["lib"], report


def test_a_code_actions_command_runs_in_neovim_and_what_it_changed_is_saved_and_named(nvim: Nvim) -> None:
    main = nvim.project / "main.py"
    main.write_text("def greet(name):\n    return name  # TODO: louder\n")
    nvim.extra_config["permission"]["edit"] = "allow"
    nvim.model.script(
        Turn.tool_call("code_actions", {"filePath": "main.py", "line": 2}),
        Turn.tool_call("code_actions", {"filePath": "main.py", "line": 2, "apply": "Mark the TODO done"}),
        Turn.text("Marked."),
    )
    toy = json.dumps([sys.executable, str(TOY_LS)])
    run = nvim.run("refactor_command.lua", AGENTLS_TEST_TOY_LS=toy).check()
    assert "- Mark the TODO done [quickfix]" in tool_results(nvim, 1), run.stderr
    applied = tool_results(nvim, 2)
    assert (
        "Its command “Mark the TODO done” ran in the editor and changed main.py (saved; in the review)."
        in applied
    )
    assert "fixed: main.py:2: warning: a TODO is left [toy]" in applied, applied
    assert main.read_text() == "def greet(name):\n    return name  # DONE: louder\n"


def test_a_rename_over_several_files_asks_once_with_every_files_diff_on_screen(
    nvim: Nvim, tmp_path: Path
) -> None:
    for name in ("tsconfig.json", "lib.ts", "a.ts"):
        (nvim.project / name).write_text(FILES[name])
    nvim.model.script(
        Turn.tool_call("rename", {"filePath": "lib.ts", "line": 1, "symbol": "total", "newName": "sum"}),
        Turn.text("Renamed."),
    )
    out = tmp_path / "out.json"
    tsls = json.dumps([tool("typescript-language-server"), "--stdio"])
    run = nvim.run(
        "refactor_dialog.lua", timeout=120, AGENTLS_TEST_TSLS=tsls, AGENTLS_TEST_OUT=str(out)
    ).check()
    seen = json.loads(out.read_text())
    assert len(seen["seen"]) == 1, (seen, tool_results(nvim, 1))
    [dialog] = seen["seen"]
    assert dialog["prompt"].endswith("agentls wants permission for edit: Rename total to sum"), run.stderr
    assert dialog["ft"] == "diff"
    assert "+++ b/a.ts" in dialog["screen"] and "+++ b/lib.ts" in dialog["screen"], dialog["screen"]
    assert "+import { sum } from './lib';" in dialog["screen"], dialog["screen"]
    assert seen["tabs"] == 1  # the diff's tab closed with the dialog
    assert seen["a"] == FILES["a.ts"].replace("total", "sum").rstrip("\n")
