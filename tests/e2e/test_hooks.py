"""Hooks as a user configures them, through ``agentls run`` (a real subprocess, real hook commands,
the fake model): Claude Code's shape and input, exit 2 and JSON output honoured, a hanging hook
killed at its timeout, an untrusted project's hooks never run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import agentls, clean_env

PY = sys.executable


def env_with(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, **extra: Any
) -> dict[str, str]:
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, **extra))
    return env


def hook(event: str, command: str, matcher: str = "", timeout: float | None = None) -> dict[str, Any]:
    one: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        one["timeout"] = timeout
    return {event: [{"matcher": matcher, "hooks": [one]}]}


def script(folder: Path, name: str, body: str) -> str:
    """A Python hook script in ``folder``; the command that runs it."""
    path = folder / name
    path.write_text("import json, sys\nevent = json.load(sys.stdin)\n" + body)
    return f"{PY} {path}"


def tool_results(model: FakeModelServer) -> list[str]:
    return [str(m.get("content")) for m in model.requests[-1].messages if m.get("role") == "tool"]


def said_to_model(model: FakeModelServer, index: int = -1) -> str:
    return json.dumps(model.requests[index].messages)


async def test_a_pre_tool_use_hook_refuses_rm_and_the_model_reads_why(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    seen = tmp_path / "seen.json"
    command = script(
        tmp_path,
        "no_rm.py",
        f"open({str(seen)!r}, 'w').write(json.dumps(event))\n"
        "if event['tool_input']['command'].startswith('rm '):\n"
        "    print('rm is not allowed here; move files to trash/', file=sys.stderr)\n"
        "    sys.exit(2)\n",
    )
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Understood."))
    env = env_with(
        tmp_path, model, title_model, hooks=hook("PreToolUse", command, "Bash"), permission="allow"
    )
    code, _, err = await agentls("run", "delete calc.py", cwd=project, env=env)
    assert code == 0, err
    assert (project / "calc.py").exists()
    refused = (
        "A PreToolUse hook of the user's refused this call: rm is not allowed here; move files to trash/"
    )
    assert tool_results(model) == [f"Error: {refused}"]
    event = json.loads(seen.read_text())
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "Bash"
    assert event["tool_input"]["command"] == "rm calc.py" and event["cwd"] == str(project)
    assert event["session_id"].startswith("ses") and event["tool_use_id"]


async def test_a_pre_tool_use_hook_that_asks_is_a_dialog_where_the_rules_allow_the_tool(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    answer = {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "touches prod"}}
    command = script(tmp_path, "ask.py", f"print(json.dumps({answer!r}))\n")
    model.script(Turn.tool_call("bash", {"command": "touch made"}), Turn.text("never sent"))
    env = env_with(
        tmp_path, model, title_model, hooks=hook("PreToolUse", command), permission={"bash": "allow"}
    )
    code, _, err = await agentls("run", "make a file", cwd=project, env=env)  # no terminal: refused
    assert code == 1 and "needed permission for hook (bash)" in err, err
    assert not (project / "made").exists()


async def test_a_post_tool_use_formatter_changes_the_file_and_the_model_is_told(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    # Claude Code's documented formatter hook reads tool_input.file_path.
    command = script(
        tmp_path,
        "fmt.py",
        "path = event['tool_input']['file_path']\n"
        "text = open(path).read()\n"
        "open(path, 'w').write(text.replace('a+b', 'a + b'))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse',"
        " 'additionalContext': 'formatted ' + path}}))\n",
    )
    target = str(project / "calc.py")
    model.script(
        Turn.tool_call("edit", {"filePath": target, "oldString": "return a - b", "newString": "return a+b"}),
        Turn.text("Fixed."),
    )
    env = env_with(
        tmp_path, model, title_model, hooks=hook("PostToolUse", command, "Edit|Write"), permission="allow"
    )
    code, _, err = await agentls("run", "fix add", cwd=project, env=env)
    assert code == 0, err
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    (result,) = tool_results(model)
    assert result.endswith(f"A PostToolUse hook of the user's added: formatted {target}")


async def test_a_user_prompt_submit_hook_blocks_a_prompt_before_it_is_sent(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    command = script(
        tmp_path,
        "guard.py",
        "if 'password' in event['prompt']:\n"
        "    print('prompts must not carry passwords', file=sys.stderr)\n"
        "    sys.exit(2)\n",
    )
    model.script(Turn.text("never sent"))
    env = env_with(tmp_path, model, title_model, hooks=hook("UserPromptSubmit", command))
    code, _, err = await agentls("run", "my password is hunter2", cwd=project, env=env)
    assert code != 0 and "Traceback" not in err
    assert "a UserPromptSubmit hook blocked this prompt: prompts must not carry passwords" in err
    assert model.requests == []


async def test_prompt_and_session_start_hooks_add_context_the_model_reads(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    hooks = {
        **hook("SessionStart", f"{PY} -c \"print('open issues: #12')\""),
        **hook("UserPromptSubmit", f"{PY} -c \"print('branch: feature-x')\""),
    }
    model.script(Turn.text("Noted."))
    env = env_with(tmp_path, model, title_model, hooks=hooks)
    code, _, err = await agentls("run", "hello", cwd=project, env=env)
    assert code == 0, err
    sent = said_to_model(model, 0)
    assert "A SessionStart hook configured by the user added:\\nopen issues: #12" in sent
    assert "A UserPromptSubmit hook configured by the user added:\\nbranch: feature-x" in sent


async def test_a_stop_hook_keeps_the_turn_going_once(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    command = script(
        tmp_path,
        "stop.py",
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests before you stop'}))\n",
    )
    model.script(Turn.text("Done."), Turn.text("Tests pass."))
    env = env_with(tmp_path, model, title_model, hooks=hook("Stop", command))
    code, out, err = await agentls("run", "finish", cwd=project, env=env)
    assert code == 0, err
    assert len(model.requests) == 2 and "Tests pass." in out
    assert "The turn is not finished: run the tests before you stop" in said_to_model(model)


async def test_a_hanging_hook_is_killed_at_its_timeout_and_the_turn_goes_on(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("read", {"filePath": str(project / "calc.py")}), Turn.text("Read it."))
    env = env_with(tmp_path, model, title_model, hooks=hook("PreToolUse", "sleep 600", timeout=1))
    code, out, err = await agentls("run", "read calc.py", cwd=project, env=env)
    assert code == 0, err
    (result,) = tool_results(model)
    assert "return a - b" in result and "Read it." in out


async def test_a_notification_hook_runs_while_a_dialog_waits(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = tmp_path / "notified.json"
    command = script(tmp_path, "notify.py", f"open({str(marker)!r}, 'w').write(json.dumps(event))\n")
    model.script(Turn.tool_call("bash", {"command": "touch made"}), Turn.text("never sent"))
    env = env_with(tmp_path, model, title_model, hooks=hook("Notification", command))
    await agentls("run", "make a file", cwd=project, env=env)  # no terminal: the dialog is refused
    event = json.loads(marker.read_text())
    assert event["hook_event_name"] == "Notification"
    assert event["message"].startswith("agentls needs your permission: ")


async def test_an_untrusted_project_s_claude_hooks_never_run(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = tmp_path / "hook-ran"
    settings = {"hooks": hook("UserPromptSubmit", f"touch {marker}")}
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(json.dumps(settings))
    model.script(Turn.text("Hi."))
    code, _, err = await agentls("run", "hello", cwd=project, env=env_with(tmp_path, model, title_model))
    assert code == 0, err
    assert not marker.exists()
    # Trusted, the same file's hook runs.
    code, _, err = await agentls(
        "trust", "add", str(project), cwd=project, env=env_with(tmp_path, model, title_model)
    )
    assert code == 0, err
    model.script(Turn.text("Hi again."))
    code, _, err = await agentls("run", "hello", cwd=project, env=env_with(tmp_path, model, title_model))
    assert code == 0, err
    assert marker.exists()
