"""`agentls demo` and `agentls run` as a user runs them: real subprocesses."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests import prespawn

from .conftest import fake_config

AGENTLS = [sys.executable, "-m", "lsp_server.cli"]  # cold: a terminal's process group, signals


async def agentls(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *prespawn.command("lsp_server.cli", *args),  # forked pre-imported (tests/prespawn)
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        AGENTLS_DATA_DIR=str(tmp_path / "data"),
        AGENTLS_CONFIG_DIR=str(tmp_path / "config"),
        HOME=str(tmp_path / "home"),
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    return env


async def test_demo_runs_a_scripted_turn_through_the_lsp_server(tmp_path: Path) -> None:
    code, out, err = await agentls("demo", cwd=tmp_path, env=clean_env(tmp_path))
    assert code == 0, err
    assert "SCRIPTED" in out and "through the LSP server" in out
    assert "(demo answers the dialog: allow once)" in out
    assert "(editor applied the edit as one undo step: agent: edit calc.py)" in out
    assert "editor buffer now: return a + b" in out and "disk now:          return a + b" in out
    assert "Traceback" not in err


async def test_demo_in_process(tmp_path: Path) -> None:
    code, out, err = await agentls("demo", "--in-process", cwd=tmp_path, env=clean_env(tmp_path))
    assert code == 0, err
    assert "→ edit calc.py" in out and "calc.py now: return a + b" in out


async def test_run_streams_the_answer(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("read", {"filePath": "calc.py"}), Turn.text("It subtracts.", chunks=3))
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(
        {
            "model": "fake/m",
            "small_model": "titles/t",
            "provider": {
                "titles": {
                    "litellm_provider": "openai",
                    "options": {"api_base": title_model.openai_base, "api_key": "k"},
                    "models": {"t": {"limit": {"context": 10000, "output": 100}}},
                },
                "fake": {
                    "litellm_provider": "openai",
                    "options": {"api_base": model.openai_base, "api_key": "k"},
                    "models": {"m": {"limit": {"context": 10000, "output": 1000}}},
                },
            },
        }
    )
    code, out, err = await agentls("run", "what does add do?", "--yes", cwd=project, env=env)
    assert code == 0, err
    assert "→ read calc.py" in out
    assert out.count("It subtracts.") == 1


def model_env(tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer) -> dict[str, str]:
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    return env


async def test_run_without_a_tty_runs_what_the_defaults_allow(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("bash", {"command": "cat calc.py | grep return"}), Turn.text("It subtracts."))
    env = model_env(tmp_path, model, title_model)
    code, out, err = await agentls("run", "what does add do?", cwd=project, env=env)
    assert code == 0, err
    assert "It subtracts." in out and "permission" not in err


async def test_run_without_a_tty_names_the_permission_it_needed(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("never sent"))
    env = model_env(tmp_path, model, title_model)
    code, _, err = await agentls("run", "delete calc.py", cwd=project, env=env)
    assert code == 1 and "Traceback" not in err
    assert "needed permission for edit (calc.py)" in err and "no terminal" in err
    assert "--yes" in err and '"permission": "allow"' in err
    assert (project / "calc.py").exists()


async def test_run_with_a_missing_api_key_names_the_variable(tmp_path: Path, project: Path) -> None:
    code, _, err = await agentls(
        "run", "hi", "--yes", "--model", "anthropic/claude-sonnet-4-5", cwd=project, env=clean_env(tmp_path)
    )
    assert code == 1, err
    assert "ANTHROPIC_API_KEY" in err and "Traceback" not in err


@pytest.mark.in_process("its session is made in this process, and `agentls compact` opens its own agent")
async def test_compact_command_summarises_a_session(
    tmp_path: Path,
    project: Path,
    make_app: Any,
    model: FakeModelServer,
    title_model: FakeModelServer,
) -> None:
    app = await make_app()
    session = await app.create_session()
    for n in range(3):
        model.script(Turn.text(f"answer {n}"))
        await app.prompt(session.id, [TextInput(text=f"request {n}")])
    await app.close()
    model.script(Turn.text("SUMMARY: three requests answered"))
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    code, out, err = await agentls("compact", session.id, "-C", str(project), cwd=project, env=env)
    assert code == 0, err
    assert "SUMMARY: three requests answered" in out
    assert model.requests[-1].tools == []
    code, _, err = await agentls("compact", "ses_missing", "-C", str(project), cwd=project, env=env)
    assert code == 1 and "not found" in err and "Traceback" not in err


async def test_run_prints_the_real_answer_not_the_compaction_summary(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    # Usable context: 100,000 - 4,000. The first answer overflows it, so the turn compacts and
    # continues; the summary is bookkeeping the user must not see as the answer.
    model.script(
        Turn.text("THE REAL ANSWER", chunks=3).usage(input=97_000, output=10),
        Turn.text("SECRET SUMMARY OF THE SESSION", chunks=3).usage(input=500, output=50),
        Turn.text("Nothing more to do.").usage(input=600, output=10),
    )
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model))
    code, out, err = await agentls("run", "answer me", "--yes", cwd=project, env=env)
    assert code == 0, err
    assert len(model.requests) == 3 and model.requests[1].tools == []  # the summary was requested
    assert "THE REAL ANSWER" in out
    assert "SECRET SUMMARY" not in out
    assert "compacted" in out  # said once, instead of the summary's text
