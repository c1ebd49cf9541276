"""Refactors by VS Code's language servers: a real VS Code (code-server + Chromium) with its built-in
TypeScript server, the extension, the real ``agentls serve`` and the scripted fake model. The model
renames a function used in three files, applies TypeScript's missing-import quick fix, formats a file
with the user's indentation, and asks for a rename in a file no server serves; the extension answers
through ``vscode.execute*Provider``, the server applies the edits as the agent's own (saved, listed in
the Changes view, undone by "Undo All Agent Changes"). Screenshots go to
``tests/vscode/screenshots/refactors``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

TSCONFIG = {"compilerOptions": {"strict": True, "module": "commonjs"}, "include": ["*.ts"]}
FILES = {
    "lib.ts": "export function total(xs: number[]): number {\n  return xs.length;\n}\n\n"
    "export function average(xs: number[]): number {\n  return total(xs) / xs.length;\n}\n",
    "first.ts": 'import { total } from "./lib";\n\nexport const count = total([1, 2]);\n',
    # The call site the rename breaks: clash.ts has its own `sum`, which the renamed import collides with.
    "clash.ts": 'import { total } from "./lib";\n\nconst sum = 3;\nexport const both = total([sum]);\n',
    "mean.ts": "export const mean = average([1, 2, 3]);\n",
    "messy.ts": "export function f(x: number) {\nif (x) {\nreturn 1;\n}\nreturn 2;\n}\n",
    "zed.ts": "export const zed = 1;\n",
    "tidy.ts": 'import { zed } from "./zed";\nimport { average } from "./lib";\n\n'
    "export const x = average([zed]);\n",
    "notes.txt": "total is the sum\n",
}
IMPORT_FIX = 'Add import from "./lib"'


@dataclass
class Run(Driven):
    model: FakeModelServer

    def tool_result(self, step: int) -> str:
        """The result of the tool call the model read in its request number ``step``."""
        return str(self.model.requests[step].messages[-1].get("content"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-refactors")
    folder = tmp / "project"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text)
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("rename", {"filePath": "lib.ts", "line": 1, "symbol": "total", "newName": "sum"}),
            Turn.tool_call("code_actions", {"filePath": "mean.ts", "line": 1}),
            Turn.tool_call("code_actions", {"filePath": "mean.ts", "line": 1, "apply": IMPORT_FIX}),
            Turn.tool_call("format", {"filePath": "messy.ts"}),
            Turn.tool_call(
                "rename", {"filePath": "notes.txt", "line": 1, "symbol": "total", "newName": "sum"}
            ),
            Turn.tool_call("organize_imports", {"filePath": "tidy.ts"}),
            Turn.text("Refactored."),
        )
        titles.script(*[Turn.text("Refactors") for _ in range(3)])
        config = fake_model_config(model, titles)
        # Edits allowed by a rule are review hunks; the user's indentation is three spaces.
        settings = {
            "agentls.permission": {"edit": "allow"},
            "editor.tabSize": 3,
            "editor.insertSpaces": True,
            "editor.detectIndentation": False,
            # The user has the files open in tabs (VS Code's TypeScript checks only those).
            "workbench.editor.enablePreview": False,
        }
        driven = drive("e2e_refactors.mjs", "refactors", tmp, folder, config, settings=settings)
        yield Run(driven.result, driven.output, model)


def test_the_model_is_offered_the_refactoring_tools(run: Run) -> None:
    run.phase("refactor")
    offered = {t["function"]["name"] for t in run.model.requests[0].tools}
    assert {"rename", "code_actions", "organize_imports", "format"} <= offered, offered


def test_a_rename_changes_every_file_and_its_delta_names_the_broken_call_site(run: Run) -> None:
    r = run.phase("refactor")
    result = run.tool_result(1)
    assert result.startswith("Renamed total to sum:") and "3 files (clash.ts, first.ts, lib.ts)" in result, (
        result
    )
    assert (
        "new: clash.ts:1: error: Import declaration conflicts with local declaration of 'sum'. [ts]" in result
    )
    assert r["files"]["first.ts"] == FILES["first.ts"].replace("total", "sum"), r["files"]
    assert "export function sum(" in r["files"]["lib.ts"] and "return sum(xs)" in r["files"]["lib.ts"]
    assert r["dirty"] == [], r["dirty"]  # the agent's edits are saved, as every agent edit


def test_typescripts_missing_import_quick_fix_is_listed_and_applied(run: Run) -> None:
    r = run.phase("refactor")
    listing = run.tool_result(2)
    assert f"- {IMPORT_FIX} [quickfix]" in listing, listing
    applied = run.tool_result(3)
    # TypeScript's fixes carry a command of their own, which changes nothing here.
    assert (
        "Its command “_typescript.applyCodeActionCommand” ran in the editor and changed no file." in applied
    )
    assert f"Applied “{IMPORT_FIX}”: changed 1 file (mean.ts)." in applied, applied
    assert "fixed: mean.ts:1: error: Cannot find name 'average'." in applied, applied
    assert r["files"]["mean.ts"].startswith('import { average } from "./lib";'), r["files"]["mean.ts"]


def test_format_uses_the_users_indentation(run: Run) -> None:
    r = run.phase("refactor")
    assert run.tool_result(4).startswith("Formatted messy.ts with the editor's formatter"), run.tool_result(4)
    three = "export function f(x: number) {\n   if (x) {\n      return 1;\n   }\n   return 2;\n}\n"
    assert r["files"]["messy.ts"] == three, r["files"]["messy.ts"]


def test_a_file_no_server_renames_in_is_said_as_such(run: Run) -> None:
    run.phase("refactor")
    said = run.tool_result(5)
    assert "the editor's language servers rename nothing for 'total' on line 1 of notes.txt" in said, said


def test_organize_imports_applies_typescripts_source_action(run: Run) -> None:
    r = run.phase("refactor")
    said = run.tool_result(6)
    assert said.startswith("Applied “Organize Imports”: changed 1 file (tidy.ts)."), said
    tidy = (
        'import { average } from "./lib";\nimport { zed } from "./zed";\n\nexport const x = average([zed]);\n'
    )
    assert r["files"]["tidy.ts"] == tidy, r["files"]["tidy.ts"]


def test_the_rename_is_reviewable_and_undone_as_hunks(run: Run) -> None:
    r = run.phase("review")
    assert any("clash.ts" in row for row in r["rows"]), r["rows"]
    assert r["undone"]["first.ts"] == FILES["first.ts"], r["undone"]
    assert r["undone"]["clash.ts"] == FILES["clash.ts"], r["undone"]
