"""The extension host end to end, in a real VS Code (code-server + Chromium) with the real ``agentls serve``.

Two scenarios of ``e2e_host.mjs``: a first run (no model configured: the setup view, the key in
SecretStorage and used by the server, the keyboard, the lightbulb, the proposed diff tab, sessions, a
crash) and a wrong ``agentls.server.path``. Plus the packaging a user runs: ``npm ci && npm run
package`` with no vsce installed globally. Screenshots go to ``tests/vscode/screenshots/host-*``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import EXTENSION, vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
KEY = "sk-e2e-first-run-7c41"
CALC = "def add(a, b):\n    return a - b\n"
CSS = ".box { colr: red; }\n"
STORY = "".join(f"Once upon a time, part {i}. " for i in range(300))


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    root: Path
    main: FakeModelServer | None = None

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


def drive(scenario: str, tmp: Path, settings: dict[str, Any], env: dict[str, str], **extra: Any) -> Run:
    """Run one scenario of e2e_host.mjs in a fresh code-server; keep its screenshots and log."""
    folder = tmp / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    (folder / "styles.css").write_text(CSS)
    shots, trace = tmp / "screenshots", tmp / "trace.jsonl"
    env = {"AGENTLS_VSCODE_TRACE": str(trace), **env}
    with code_server(tmp / "vscode", vsix(), settings, env) as cs:
        args = {
            "scenario": scenario,
            "url": cs.url,
            "folder": str(folder),
            "shots": str(shots),
            "trace": str(trace),
            "settings": str(cs.root / "data" / "User" / "settings.json"),
            **extra,
        }
        done = subprocess.run(
            [tool("node"), str(HERE / "e2e_host.mjs"), json.dumps(args)],
            env=tools_env(),
            capture_output=True,
            text=True,
            timeout=400,
        )
        output = done.stdout + done.stderr
        if done.returncode != 0:
            output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
            if trace.is_file():
                output += "\ntrace:\n" + trace.read_text()[-4000:]
    result: dict[str, Any] = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    target = HERE / "screenshots" / f"host-{scenario}"
    shutil.rmtree(target, ignore_errors=True)
    if shots.is_dir():
        shutil.copytree(shots, target)
    target.mkdir(parents=True, exist_ok=True)
    (target / "driver.log").write_text(output)
    return Run(result, output, tmp)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    tmp = tmp_path_factory.mktemp("vscode-first-run")
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(
            Turn.text("Hello from the first run."),
            Turn.tool_call("edit", {"filePath": "styles.css", "oldString": "colr", "newString": "color"}),
            Turn.text("Renamed colr to color."),
            Turn.fault(401, body={"error": {"message": "Incorrect API key provided"}}),
            Turn.text(STORY, chunks=300).stall(after=20),
        )
        titles.script(*[Turn.text(t) for t in ("First chat", "Fix the CSS", "Third", "Fourth", "Fifth")])
        # No model: only where "openai" is served (the fake) and a titles model; no key anywhere.
        config = {
            "small_model": "titles/t",
            "snapshot": False,
            "provider": {
                "openai": {"options": {"api_base": main.openai_base}},
                "titles": {
                    "litellm_provider": "openai",
                    "options": {"api_base": titles.openai_base, "api_key": "offline"},
                    "models": {"t": {"limit": {"context": 8_000, "output": 100}}},
                },
            },
        }
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": config,
            "agentls.permission": {"edit": "ask"},
            # Every LSP message the client sends is printed in the agentls output: no key may be in one.
            "agentls.trace.server": "verbose",
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
            "OPENAI_API_KEY": "",
        }
        run = drive("firstrun", tmp, settings, env, apiKey=KEY)
        run.main = main
        yield run


def test_first_run_shows_a_setup_with_the_servers_providers(first_run: Run) -> None:
    r = first_run.phase("setup-shown")
    assert "openai" in r["providers"], r["providers"]
    assert "Set up agentls" in r["text"]
    assert "File edits and commands ask before they run" in r["text"], r["text"]
    assert "agentls.permission" in r["text"]
    assert r["keyType"] == "password"
    assert r["modelPicker"] == "no model set"  # not the first listed model, as if it were chosen


def test_a_prompt_without_a_model_stays_in_the_box_and_names_the_setting(first_run: Run) -> None:
    r = first_run.phase("no-model-prompt-kept")
    assert r["promptValue"] == "hello first run", r
    assert "agentls.model" in r["notice"] and "agentls.json" not in r["notice"], r["notice"]
    assert r["userMessages"] == 0


def test_the_key_goes_to_secret_storage_and_the_server_not_to_settings(first_run: Run) -> None:
    r = first_run.phase("setup-saved")
    assert r["picker"] == "openai/gpt-4o-mini" and r["noticeAfterSetup"] == "cleared"
    assert r["promptBeforeSend"] == "hello first run" and r["promptAfterSend"] == "", r
    assert first_run.main is not None
    request = first_run.main.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "hello first run" in json.dumps(request.messages)
    user = first_run.root / "vscode" / "data" / "User" / "settings.json"
    assert json.loads(user.read_text())["agentls.model"] == "openai/gpt-4o-mini"
    # Never in any settings.json (user, machine, workspace) nor anywhere in the agent's data.
    files = [*first_run.root.rglob("settings.json"), *(first_run.root / "agentls-data").rglob("*")]
    assert len(files) > 3
    assert [f for f in files if f.is_file() and KEY.encode() in f.read_bytes()] == []


def test_the_key_is_in_no_lsp_message_even_in_a_verbose_trace(first_run: Run) -> None:
    """The key reaches the server in its environment; the config names only the variable."""
    first_run.phase("setup-saved")
    logs = [f for f in (first_run.root / "vscode" / "data" / "logs").rglob("*") if f.is_file()]
    traced = [f for f in logs if b"didChangeConfiguration" in f.read_bytes()]
    assert traced, "the verbose trace of the agentls output was not found in the logs"
    assert [f for f in logs if KEY.encode() in f.read_bytes()] == []
    assert any(b"{env:AGENTLS_KEY_OPENAI}" in f.read_bytes() for f in traced)


def test_focus_chat_and_the_default_keybindings(first_run: Run) -> None:
    r = first_run.phase("keyboard")
    assert r["focusBefore"] is False
    assert r["keybinding"] is True and r["typed"] == "typed after ctrl+alt+a", r
    assert r["command"] is True
    assert r["newSession"], r


def test_the_lightbulb_only_on_a_problem_and_its_turn_in_the_view(first_run: Run) -> None:
    r = first_run.phase("lightbulb")
    assert not any("agent" in row.lower() for row in r["plainLine"]), r["plainLine"]
    assert any("Ask agent to fix: Unknown property" in row for row in r["onProblem"]), r["onProblem"]
    assert "Unknown property" in r["userText"] and "[css]" in r["userText"], r["userText"]
    assert "no problem" not in r["userText"]
    assert r["sidebarAfter"].lower().startswith("agentls"), r  # the chat view came back
    assert any("proposed" in t for t in r["tabsWithDiff"]), r["tabsWithDiff"]
    assert not any("proposed" in t for t in r["tabsAfter"]), r["tabsAfter"]
    assert (first_run.root / "project" / "styles.css").read_text() == ".box { color: red; }\n"


def test_rename_and_delete_a_session_that_is_not_the_current_one(first_run: Run) -> None:
    r = first_run.phase("sessions")
    assert any(x["title"] == "Renamed elsewhere" and not x["current"] for x in r["afterRename"]), r
    assert not any(x["title"] == "Renamed elsewhere" for x in r["afterDelete"])
    assert r["currentAfter"] is not None


def test_a_prompt_whose_turn_failed_is_restored(first_run: Run) -> None:
    r = first_run.phase("failed-turn-restores-prompt")
    assert r["promptAfter"] == "This one will fail"
    assert "The turn failed" in r["notice"] and "API key" in r["notice"], r["notice"]


def test_a_prompt_whose_server_crashed_is_restored(first_run: Run) -> None:
    r = first_run.phase("crash-restores-prompt")
    assert r["promptWhileRunning"] == ""
    assert r["promptAfterCrash"] == "Tell me a long story", r


@pytest.fixture(scope="module")
def bad_path(tmp_path_factory: pytest.TempPathFactory) -> Run:
    tmp = tmp_path_factory.mktemp("vscode-bad-path")
    settings = {"agentls.server.path": "/usr/bin/python3"}
    env = {"AGENTLS_DATA_DIR": str(tmp / "agentls-data"), "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config")}
    return drive("badpath", tmp, settings, env, agentls=str(AGENTLS))


def test_another_executable_as_the_server_path_gives_one_message_with_the_cause(bad_path: Run) -> None:
    r = bad_path.phase("another-executable")
    expected = "agentls.server.path points to /usr/bin/python3, which is not agentls"
    # One notification in all (it used to be six, none with the cause), and the view says it too.
    (message,) = r["notificationsAfter"]
    assert expected in message and "Python 3" in message, message
    assert expected in r["notice"]
    assert r["promptValue"] == "keep me please"


def test_a_server_path_that_does_not_exist_is_named(bad_path: Run) -> None:
    r = bad_path.phase("no-such-file")
    expected = "agentls.server.path points to /nonexistent/agentls, which does not exist."
    assert any(expected in n for n in r["notifications"]), r["notifications"]
    assert expected in r["notice"], r["notice"]
    assert r["promptValue"] == "keep me please"


def test_a_server_that_exits_at_start_is_reported_once_with_what_it_said(bad_path: Run) -> None:
    r = bad_path.phase("bad-arguments")
    said = "unrecognized arguments: --no-such-flag"
    assert said in r["notice"] and "did not start" in r["notice"], r["notice"]
    ours = [n for n in r["notifications"] if "--no-such-flag" in n]
    assert len(ours) == 1 and said in ours[0], r["notifications"]
    # Not restarted (it was, five times, each with a notification).
    assert r["restarts"] == 0 and not any("restarting" in n for n in r["notifications"]), r
    # Nor said a second time by the language client's own popup, which names no cause.
    assert not any("couldn't create connection" in n for n in r["notifications"]), r["notifications"]


def test_npm_ci_and_package_work_without_a_global_vsce(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("node", "npm"):
        (bin_dir / name).symlink_to(tool(name))
    env = {**tools_env(), "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    assert shutil.which("vsce", path=env["PATH"]) is None
    copy = tmp_path / "vscode"
    shutil.copytree(EXTENSION, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
    for cmd in (["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], ["npm", "run", "package"]):
        done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{cmd}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (copy / "dist" / "agentls.vsix").stat().st_size > 10_000
