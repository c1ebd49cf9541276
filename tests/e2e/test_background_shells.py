"""A background dev server as a user's agent runs one, through `agentls run` (a real subprocess, the
default sandbox, the fake model): it keeps serving while later steps fetch from it, shell_output
returns only what is new, and nothing of it is left once agentls exits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.events import BackgroundShellUpdated
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.ticks import until

from .conftest import HarnessFactory, fake_config
from .test_cli import agentls, clean_env

FETCH = (
    f'{sys.executable} -c "import time, urllib.request\n'
    "for _ in range(400):\n"
    "    try:\n"
    "        print(urllib.request.urlopen('http://127.0.0.1:{port}/calc.py').read().decode()); break\n"
    '    except OSError: time.sleep(0.05)"'
)


def tool_results(model: FakeModelServer) -> list[str]:
    return [str(m.get("content")) for m in model.requests[-1].messages if m.get("role") == "tool"]


def running(marker: str) -> list[str]:
    """Command lines of live processes that contain ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker in line and state != "Z":
                found.append(line)
    return found


async def test_a_dev_server_keeps_running_while_later_steps_use_it(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    port = 18000 + (hash(str(tmp_path)) % 2000)
    server = f"{sys.executable} -m http.server {port} --bind 127.0.0.1"
    model.script(
        Turn.tool_call("bash", {"command": server, "background": True, "description": "serve"}),
        Turn.tool_call("bash", {"command": FETCH.replace("{port}", str(port))}),
        Turn.tool_call("shell_output", {"shell_id": "shell_1"}),
        Turn.tool_call("shell_output", {"shell_id": "shell_1"}),
        Turn.tool_call("shell_output", {"shell_id": "shell_7"}),
        Turn.text("The server works."),
    )
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, permission="allow"))
    code, _, err = await agentls("run", "serve the project and check it", cwd=project, env=env)
    assert code == 0, err
    started, fetched, first, second, unknown = tool_results(model)
    assert started.startswith("Started in the background as shell_1.")
    assert "return a - b" in fetched  # served by the background server, in a later step
    assert '"GET /calc.py HTTP/1.1" 200' in first and "shell_1 is running" in first
    assert second.startswith("(no new output)") and "GET" not in second  # only what is new
    assert "no background shell 'shell_7' in this session (its shells: shell_1)" in unknown
    # agentls exited: its reaper kills the background shells' groups (it may take a moment).
    await until(lambda: not running(f"http.server {port}"), "the reaper to kill the background server")


async def test_closing_the_agent_kills_its_background_shells_and_says_so(
    make_harness: HarnessFactory, model: FakeModelServer, tmp_path: Path
) -> None:
    harness = await make_harness(permission="allow")
    app = harness.agent
    marker = f"closemark{abs(hash(str(tmp_path))) % 10**8}"
    command = f'{sys.executable} -c "import time; time.sleep(300)" {marker}'
    model.script(
        Turn.tool_call("bash", {"command": command, "background": True, "description": "sleep"}),
        Turn.text("It runs."),
    )
    updates: list[BackgroundShellUpdated] = []
    app.listen(lambda e: updates.append(e) if isinstance(e, BackgroundShellUpdated) else None)
    session = await app.create_session()
    await app.prompt(session.id, [TextInput(text="start it")])
    [shell] = await app.background_shells(session.id)
    assert (shell.id, shell.status, shell.command) == ("shell_1", "running", command)
    assert running(marker)
    await harness.close()  # the app's close, not the reaper at exit: this process lives on
    assert running(marker) == []
    assert [(u.shell.id, u.shell.status) for u in updates] == [("shell_1", "running"), ("shell_1", "stopped")]
