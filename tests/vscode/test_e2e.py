"""The VS Code extension end to end: a real VS Code (code-server) driven by headless Chromium, the real
``agentls serve`` started by the extension, and the scripted fake model.

Screenshots go to the test's tmp dir and are copied to ``tests/vscode/screenshots/`` (gitignored).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from core.demo.config import fake_model_config
from core.demo.fake_model import FakeModelServer
from core.demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
CALC = "def add(a, b):\n    return a - b\n"
HOSTILE = (
    "Fixed add(): it returned `a - b`, now it returns `a + b`.\n\n"
    '<img src=x onerror="window.__pwned=true">\n\n'
    "<script>window.__pwned = true</script>\n\n"
    "[click me](javascript:window.__pwned=true) or [this](command:workbench.action.closeWindow) "
    "or [that](vscode://file/etc/passwd)\n\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
)
ESSAY = "".join(f"Essay part {i}: the function adds numbers. " for i in range(200))


def turns() -> list[Turn]:
    return [
        Turn.text("Let me read calc.py first.", chunks=4).tool_call("read", {"filePath": "calc.py"}),
        Turn.text("`add` subtracts; fixing it.", chunks=3).tool_call(
            "edit", {"filePath": "calc.py", "oldString": "return a - b", "newString": "return a + b"}
        ),
        Turn.text(HOSTILE, chunks=12),
        # Streams a little, then stalls until the agent hangs up (the user presses Escape).
        Turn.text(ESSAY, chunks=400).stall(after=40),
        Turn.text("Back after the restart.", chunks=3),
    ]


def run_driver(
    script: str, args: dict[str, object], timeout: float = 150
) -> tuple[int, str, dict[str, object]]:
    done = subprocess.run(
        [tool("node"), str(HERE / script), json.dumps(args)],
        env=tools_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    result: dict[str, object] = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    return done.returncode, done.stdout + done.stderr, result


def keep_screenshots(shots: Path) -> None:
    target = HERE / "screenshots"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(shots, target)


def test_chat_edit_undo_abort_reload(tmp_path: Path) -> None:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "calc.py").write_text(CALC)
    shots = tmp_path / "screenshots"
    trace = tmp_path / "trace.jsonl"
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        main.script(*turns())
        titles.script(*[Turn.text("Fix add in calc.py") for _ in range(5)])
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": fake_model_config(main, titles),
            "agentls.permission": {"edit": "ask"},
            "agentls.server.args": ["serve", "--log-file", str(tmp_path / "server.log")],
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp_path / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp_path / "agentls-config"),
            "AGENTLS_VSCODE_TRACE": str(trace),
        }
        with code_server(tmp_path / "vscode", package, settings, env) as cs:
            code, output, result = run_driver(
                "e2e.mjs", {"url": cs.url, "folder": str(folder), "shots": str(shots), "trace": str(trace)}
            )
        if shots.is_dir():
            keep_screenshots(shots)
        if code != 0 and trace.is_file():
            output += "\ntrace:\n" + trace.read_text()
        if code != 0 and (tmp_path / "server.log").is_file():
            output += "\nserver log:\n" + (tmp_path / "server.log").read_text()[-6000:]
        assert code == 0 and result.get("ok"), (
            f"the e2e driver failed:\n{output}\n{cs.log.read_text()[-3000:]}"
        )

        # The agent read the unsaved buffer: the read tool's result sent to the model holds the user's note.
        tool_results = [m for m in main.requests[1].messages if m.get("role") == "tool"]
        assert any("# unsaved note" in str(m.get("content")) for m in tool_results), main.requests[1].messages

    assert result["diffShowsProposal"] is True
    # The edit is in the buffer, on top of the user's unsaved note, and saved: buffer = disk, not dirty.
    assert "return a + b" in str(result["bufferAfterEdit"]) and "# unsaved note" in str(
        result["bufferAfterEdit"]
    )
    assert result["dirtyAfterEdit"] == []
    assert result["diskAfterEdit"] == "def add(a, b):\n    return a + b\n# unsaved note"
    assert not any("disk" in str(n).lower() for n in result["notificationsAfterEdit"])  # type: ignore[union-attr]
    # One undo reverts exactly the agent's edit.
    assert "return a - b" in str(result["bufferAfterUndo"]) and "# unsaved note" in str(
        result["bufferAfterUndo"]
    )
    hostile = result["hostile"]
    assert hostile == {
        "scripts": 0,
        "handlers": 0,
        "images": 0,
        "badLinks": 0,
        "shownAsText": True,
        "pwned": False,
    }, hostile
    assert isinstance(result["abortMs"], int) and result["abortMs"] < 1000, result["abortMs"]
    assert "Fix add in calc.py" in result["sessionsAfterReload"]  # type: ignore[operator]
    # The killed server was replaced by a new process, and the user was told once.
    assert result["restartedPid"] != result["killedPid"]
    assert result["restartNotices"] == 1
    events = [json.loads(line)["event"] for line in trace.read_text().splitlines()]
    assert "serverInitialized" in events and "editApplied" in events and "viewReady" in events
