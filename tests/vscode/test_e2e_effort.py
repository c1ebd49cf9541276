"""The effort picker follows the model the next prompt runs on, in a real VS Code (code-server +
Chromium) with the extension, the real ``agentls serve`` and the scripted fake model: hidden after a
turn on a model with no effort levels; shown with the levels of one that has them (an OpenAI-style
reasoning model) as soon as it is picked, a level set then reaching its first request; shown after a
turn on it; hidden again after going back. Then the prompt's pickers, buttons and editor-note chip in
a 300 px side bar. Screenshots go to ``tests/vscode/screenshots/effort``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

LONG_FILE = "a_rather_long_module_name_for_the_editor_note.py"


@dataclass
class Run(Driven):
    model: FakeModelServer


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-effort")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    (folder / LONG_FILE).write_text("x = 1\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text("PLAIN-ONE"), Turn.text("THINKING-ONE"), Turn.text("PLAIN-TWO"))
        titles.script(*[Turn.text("Effort") for _ in range(3)])
        config = fake_model_config(model, titles, model="fake/plain")
        models = config["provider"]["fake"]["models"]
        limit = models.pop("m")["limit"]
        models["plain"] = {"limit": limit}
        # An OpenAI-style reasoning switch: this model has effort levels, the plain one has none.
        models["thinking"] = {"limit": limit, "options": {"agentls_thinking": "openai"}}
        driven = drive("e2e_effort.mjs", "effort", tmp, folder, config, args={"longFile": LONG_FILE})
        yield Run(driven.result, driven.output, model)


def test_the_effort_picker_is_hidden_for_a_model_without_levels(run: Run) -> None:
    r = run.phase("plain")
    assert r["controls"]["modeShown"] and not r["controls"]["effortShown"], r


def test_picking_a_model_with_levels_shows_them_before_any_turn_on_it(run: Run) -> None:
    r = run.phase("picked")
    assert r["controls"]["effortShown"], r
    assert {"default", "low", "medium", "high"} <= set(r["controls"]["levels"]), r
    assert r["effort"] == "high", r


def test_an_effort_set_before_the_turn_reaches_the_picked_models_request(run: Run) -> None:
    run.phase("thinking")
    thinking = [req.body for req in run.model.requests if req.body.get("model") == "thinking"]
    assert thinking and thinking[0].get("reasoning_effort") == "high", thinking


def test_the_effort_picker_shows_the_levels_of_a_model_that_has_them(run: Run) -> None:
    r = run.phase("thinking")
    assert r["controls"]["effortShown"], r
    assert {"default", "low", "medium", "high"} <= set(r["controls"]["levels"]), r


def test_the_effort_picker_hides_again_back_on_the_plain_model(run: Run) -> None:
    r = run.phase("plain-again")
    assert not r["controls"]["effortShown"], r
    assert [req.body.get("model") for req in run.model.requests] == ["plain", "thinking", "plain"]


def test_a_300px_side_bar_shows_the_pickers_names(run: Run) -> None:
    r = run.phase("narrow")
    for select in r["layout"]["selects"]:
        assert select["has"] >= select["needs"], r["layout"]


def test_a_300px_side_bar_keeps_each_button_whole_and_inside(run: Run) -> None:
    r = run.phase("narrow")
    assert not any(b["clipped"] or b["outside"] for b in r["layout"]["buttons"]), r["layout"]


def test_a_300px_side_bar_keeps_the_editor_notes_x_beside_it(run: Run) -> None:
    chip = run.phase("narrow")["layout"]["chip"]
    assert chip["removeBeside"] and not chip["outside"], chip
    assert chip["height"] < 1.6 * chip["line"], chip
