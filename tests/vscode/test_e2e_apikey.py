"""A provider's API key entered and replaced at any time, in a real VS Code (code-server + Chromium)
with the extension, the real ``agentls serve`` and the scripted fake model: the model refuses the
first prompt (HTTP 401); the chat says so in one short line with a "Set API Key" button; the user
picks the provider and types the key; the next request carries it. Later "agentls: Set API Key…"
from the palette replaces it. Screenshots go to ``tests/vscode/screenshots/apikey``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

REFUSED = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}


@dataclass
class Run(Driven):
    model: FakeModelServer

    def auth(self, request: int) -> str:
        return self.model.requests[request].headers.get("authorization", "")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-apikey")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        answers = [Turn.text("HELLO-WITH-A-KEY."), Turn.text("HELLO-WITH-THE-NEW-KEY.")]
        model.script(Turn.fault(401, REFUSED), *answers)
        titles.script(*[Turn.text("Keys") for _ in range(4)])
        config = fake_model_config(model, titles)
        del config["provider"]["fake"]["options"]["api_key"]  # the user has not given one yet
        driven = drive("e2e_apikey.mjs", "apikey", tmp, folder, config)
        yield Run(driven.result, driven.output, model)


def test_a_refused_key_is_one_short_line_with_a_set_api_key_button(run: Run) -> None:
    r = run.phase("refused")
    assert r["button"] == "Set API Key", r
    assert "refused the API key (HTTP 401)" in r["notice"], r
    assert "The turn failed" in r["notice"] and "back in the box" in r["notice"], r
    # A sentence and the button, at most four lines in the narrow side bar (the provider's text: nine).
    assert r["noticeHeight"] <= 4 * r["lineHeight"] + 10, r


def test_the_key_entered_from_the_notice_reaches_the_model(run: Run) -> None:
    r = run.phase("enter-key")
    assert "the fake key is set" in " ".join(r["notifications"]), r
    assert run.auth(1) == "Bearer sk-test-4242", run.model.requests[1].headers
    assert "sk-test-4242" not in r["settings"]  # kept in the secret storage, not in settings.json


def test_the_palette_command_replaces_the_key(run: Run) -> None:
    run.phase("replace-key")
    assert run.auth(-1) == "Bearer sk-new-7777", run.model.requests[-1].headers
