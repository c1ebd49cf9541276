"""Reviewing the agent's changes in a real VS Code (code-server + Chromium), the extension, the real
``agentls serve`` and the scripted fake model: an edit allowed in its dialog (Ask mode) is kept and not
reviewed again; after a switch to Auto-accept, hunks in the editor (gutter, background, CodeLens) and
in the Changes view (in the panel) with its badge, Undo by CodeLens that keeps what the user typed
between the agent's edits (a saved line between two turns, an unsaved one after them), Keep from the
Changes view, next-hunk navigation, 200 hunks listed (timed) and kept from the view's title, and a
foreground sub-agent's edit in the parent's Changes view, labelled with the sub-agent.
Screenshots go to ``tests/vscode/screenshots/review`` (light, dark and high contrast, zoomed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
CALC = "".join(f"{name} = {value}\n" for value, name in enumerate("abcdefghij", start=1))
BIG = "".join(f"x{i} = {i}\n" for i in range(5000))
BIG_CHANGED = "".join(f"x{i} = {i}  # changed\n" if i % 25 == 0 else f"x{i} = {i}\n" for i in range(5000))


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    folder: Path
    model: FakeModelServer

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


def turns() -> list[Turn]:
    return [
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "b = 2\n", "newString": "b = 20\n"}),
        Turn.text("Changed b."),
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "c = 3\n", "newString": "c = 30\n"}),
        Turn.text("Changed c."),
        Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "h = 8\n", "newString": "h = 80\n"}),
        Turn.text("Changed h."),
        Turn.text("80 is the limit."),
        Turn.tool_call("write", {"filePath": "big.py", "content": BIG_CHANGED}),
        Turn.text("Rewritten."),
        Turn.tool_call(
            "task", {"description": "set j", "prompt": "JOB-VS: set j", "subagent_type": "general"}
        ),
        Turn.text("Delegated."),
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-review")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    (folder / "big.py").write_text(BIG)
    shots, trace, log = tmp / "screenshots", tmp / "trace.jsonl", tmp / "server.log"
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(*turns())
        model.script_for(
            "JOB-VS",
            Turn.tool_call(
                "edit", {"filePath": "calc.py", "oldString": "j = 10\n", "newString": "j = 100\n"}
            ),
            Turn.text("Set j."),
        )
        titles.script(*[Turn.text("Review") for _ in range(6)])
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": fake_model_config(model, titles, snapshot=True),  # as users have it
            "agentls.permission": {"edit": "ask"},
            "agentls.server.args": ["serve", "--log-file", str(log)],
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            args = {"url": cs.url, "folder": str(folder), "shots": str(shots), "trace": str(trace)}
            done = subprocess.run(
                [tool("node"), str(HERE / "e2e_review.mjs"), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=400,
            )
            output = done.stdout + done.stderr
            if done.returncode != 0:
                for name, path in (("trace", trace), ("server log", log), ("code-server log", cs.log)):
                    if path.is_file():
                        output += f"\n{name}:\n" + path.read_text()[-4000:]
        result: dict[str, Any] = {}
        for line in done.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT ") :])
        target = HERE / "screenshots" / "review"
        shutil.rmtree(target, ignore_errors=True)
        if shots.is_dir():
            shutil.copytree(shots, target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "driver.log").write_text(output)
        yield Run(result, output, folder, model)


def test_the_proposal_edited_in_the_diff_editor_is_what_gets_written(run: Run) -> None:
    r = run.phase("agent-edits")
    assert "\nb = 200\n" in r["text"], r["text"]
    told = str([m for m in run.model.requests[1].messages if m.get("role") == "tool"])
    assert "The user edited your proposal" in told and "+b = 200" in told, told
    assert r["diffTabs"] == []


def test_an_edit_allowed_in_its_dialog_is_not_reviewed_again(run: Run) -> None:
    r = run.phase("agent-edits")
    assert r["approvedReviewShown"] is False, r  # no "Review N changes" after the allowed edit
    # After Auto-accept's edit of c, one Keep | Undo pair: c's; b = 200, allowed, has none.
    assert [t.split(" ")[-1] for t in r["afterAuto"]] == ["Keep", "Undo"], r
    assert "b = 200" in r["afterAutoText"] and "c = 30" in r["afterAutoText"], r


def test_the_users_line_typed_between_agent_edits_is_kept(run: Run) -> None:
    r = run.phase("agent-edits")
    assert r["text"].startswith("# mine\na = 1\nb = 200\nc = 30\n"), r["text"]
    assert r["text"].endswith("h = 80\ni = 9\nj = 10\n# unsaved\n"), r["text"]


def test_pending_hunks_are_marked_in_the_editor_and_the_changes_view(run: Run) -> None:
    r = run.phase("marked")
    assert [t.split(" ")[-1] for t in r["lenses"]] == ["Keep", "Undo", "Keep", "Undo"], r["lenses"]
    assert r["gutter"] >= 2
    assert any("calc.py" in row for row in r["rows"]), r["rows"]
    assert r["badge"] == "2"


def test_undo_by_codelens_keeps_the_users_typing(run: Run) -> None:
    r = run.phase("undo-by-codelens")
    rest = CALC[12:].replace("h = 8\n", "h = 80\n")
    assert r["text"] == "# mine\na = 1\nb = 200\n" + rest + "# unsaved\n", r["text"]


def test_next_change_moves_the_cursor_to_the_pending_hunk(run: Run) -> None:
    assert "Ln 9," in run.phase("navigate")["position"]


def test_review_comments_reach_the_agent_as_one_prompt(run: Run) -> None:
    r = run.phase("comment")
    assert any("Why 80?" in t for t in r["thread"]), r["thread"]
    users = [m for m in run.model.requests[6].messages if m.get("role") == "user"]
    review = str(users[-1].get("content"))
    assert "left one comment" in review and "Why 80? Use a named constant." in review, review
    assert "calc.py, line 9 (on your change to line 9" in review, review


def test_keep_from_the_changes_view(run: Run) -> None:
    r = run.phase("keep-from-changes-view")
    assert r["rows"] == [] and r["lenses"] == []
    assert r["badge"] in (None, "")
    assert r["kept"] == [1]


def test_two_hundred_hunks_list_quickly_and_keep_all(run: Run) -> None:
    r = run.phase("two-hundred")
    assert "200" in r["rows"], r["rows"]
    # The extension times listing and decorating them (goal ≤ 50 ms each); the figures are printed,
    # not asserted: a speed goal belongs to a benchmark (bench/review.py times the server's part),
    # and this machine's load moves them (69 ms seen in a full run, 25 ms alone).
    assert r["listMs"] and r["decoratedMs"], r
    print(f"200 hunks: listed in {r['listMs']} ms, decorated in {r['decoratedMs']} ms")
    assert r["kept"] == 200 and r["after"] == []
    assert (run.folder / "big.py").read_text() == BIG_CHANGED  # kept: the file is the agent's


def test_a_sub_agents_hunk_is_labelled_with_it_in_the_parents_changes_view(run: Run) -> None:
    r = run.phase("sub-agent")
    assert any("by @general: set j" in row for row in r["rows"]), r["rows"]
    assert "j = 100\n" in (run.folder / "calc.py").read_text()
