"""`agentls run` in a project with its own agentls.json naming an MCP server: nothing of the
project's starts before the user answers (on a real pseudo-terminal), "trust" starts it and is
remembered, "not now" and a run without a terminal never start it and still answer with the
user's own config. The MCP server is a program that leaves a marker file when it is started."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .test_cli import AGENTLS, agentls, clean_env, model_env


def hostile(project: Path) -> Path:
    # In the project: the MCP server runs sandboxed (workspace-write), where only the project is writable.
    marker = project / "mcp-started"
    script = f"open({str(marker)!r}, 'w').write('ran')"
    config = {"mcp": {"repo-tool": {"type": "local", "command": [sys.executable, "-c", script]}}}
    (project / "agentls.json").write_text(json.dumps(config))
    return marker


def trusted_paths(tmp_path: Path) -> list[str]:
    store = tmp_path / "data" / "trust.json"
    return list(json.loads(store.read_text())["trusted"]) if store.exists() else []


class Terminal:
    """``agentls run`` with its stdin and stderr on a pseudo-terminal (stdout: a pipe); its blocking
    calls go to a thread, so that the fake model on the test's event loop keeps answering."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(
            [*AGENTLS, *args], cwd=cwd, env=env, stdin=slave, stdout=subprocess.PIPE, stderr=slave
        )
        os.close(slave)
        self.screen = ""

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the terminal shows:\n{self.screen}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.screen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:  # the process ended and closed the terminal
                    assert text in self.screen, f"{text!r} never appeared:\n{self.screen}"

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self) -> tuple[int, str]:
        out, _ = self.proc.communicate(timeout=120)
        while select.select([self.master], [], [], 0)[0]:  # what it wrote after the last wait
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            self.screen += chunk.decode(errors="replace")
        os.close(self.master)
        return self.proc.returncode, out.decode()


async def test_run_on_a_terminal_asks_first_and_trust_starts_the_project_s_mcp_server(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = hostile(project)
    model.script(Turn.text("Hello from the model."))
    term = Terminal(["run", "hi"], project, model_env(tmp_path, model, title_model))
    await asyncio.to_thread(term.wait_for, "trust it? [t]rust / [n]ot now:")
    assert "agentls.json" in term.screen and str(project) in term.screen
    assert not marker.exists(), "the project's MCP server started before the answer"
    term.type("t")
    code, out = await asyncio.to_thread(term.finish)
    assert code == 0, term.screen
    assert "Hello from the model." in out
    assert marker.exists(), "trusted, the project's MCP server should have started"
    assert trusted_paths(tmp_path) == [str(project)]
    assert (tmp_path / "data" / "trust.json").stat().st_mode & 0o777 == 0o600


async def test_run_on_a_terminal_not_now_never_starts_it_and_asks_again_next_time(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = hostile(project)
    model.script(Turn.text("Answered with your own config."), Turn.text("Again."))
    env = model_env(tmp_path, model, title_model)
    for expected in ("Answered with your own config.", "Again."):
        term = Terminal(["run", "hi"], project, env)
        await asyncio.to_thread(term.wait_for, "trust it? [t]rust / [n]ot now:")
        term.type("n")
        code, out = await asyncio.to_thread(term.finish)
        assert code == 0, term.screen
        assert expected in out and "only your own config is used" in term.screen
    assert not marker.exists()
    assert trusted_paths(tmp_path) == []


async def test_run_without_a_terminal_does_not_trust_and_says_how_once(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = hostile(project)
    model.script(Turn.text("Still answers."))
    code, out, err = await agentls("run", "hi", cwd=project, env=model_env(tmp_path, model, title_model))
    assert code == 0, err
    assert "Still answers." in out
    assert not marker.exists()
    assert err.count("is not trusted") == 1
    assert f"agentls trust add {project}" in err and "--trust" in err


async def test_run_with_the_trust_flag_or_a_remembered_trust_uses_the_project(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = hostile(project)
    model.script(Turn.text("One."), Turn.text("Two."))
    env = model_env(tmp_path, model, title_model)
    code, out, err = await agentls("run", "hi", "--trust", cwd=project, env=env)
    assert code == 0 and "One." in out and "not trusted" not in err, err
    assert marker.exists() and trusted_paths(tmp_path) == []  # --trust is for this run only
    marker.unlink()
    code, _, err = await agentls("trust", "add", str(project), cwd=tmp_path, env=env)
    assert code == 0 and f"trusted {project}" in err, err
    code, out, err = await agentls("run", "hi", cwd=project, env=env)
    assert code == 0 and "Two." in out and "not trusted" not in err, err
    assert marker.exists()


async def test_a_project_without_files_of_its_own_is_not_asked_about(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    (project / "AGENTS.md").write_text("Instructions are text: read without trust.\n")
    model.script(Turn.text("No question."))
    code, out, err = await agentls("run", "hi", cwd=project, env=model_env(tmp_path, model, title_model))
    assert code == 0 and "No question." in out, err
    assert "trust" not in err


async def test_the_trust_command_lists_revokes_and_names_a_bad_store(tmp_path: Path, project: Path) -> None:
    env = clean_env(tmp_path)
    code, _, err = await agentls("trust", "add", cwd=project, env=env)
    assert code == 0, err
    code, out, _ = await agentls("trust", "list", "--json", cwd=tmp_path, env=env)
    assert code == 0 and [row["path"] for row in json.loads(out)] == [str(project)]
    code, _, err = await agentls("trust", "revoke", str(project), cwd=tmp_path, env=env)
    assert code == 0 and "revoked" in err
    code, _, err = await agentls("trust", "revoke", str(project), cwd=tmp_path, env=env)
    assert code == 1 and "is not a trusted project" in err
    (tmp_path / "data" / "trust.json").write_text("{oops")
    code, _, err = await agentls("trust", "list", cwd=tmp_path, env=env)
    assert code == 1 and "trust.json: not valid JSON" in err and "Traceback" not in err
    assert (tmp_path / "data" / "trust.json").read_text() == "{oops"


async def test_review_without_a_terminal_does_not_start_the_project_s_mcp_server(
    tmp_path: Path, project: Path
) -> None:
    marker = hostile(project)
    code, _, err = await agentls("review", "ses_none", cwd=project, env=clean_env(tmp_path))
    assert "is not trusted" in err and f"agentls trust add {project}" in err, err
    assert not marker.exists()
    assert "Traceback" not in err and code in (0, 1)


async def test_run_on_a_terminal_trusts_for_now_when_the_answer_cannot_be_remembered(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = hostile(project)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "trust.json").write_text("{not json")
    model.script(Turn.text("Trusted for now."))
    term = Terminal(["run", "hi"], project, model_env(tmp_path, model, title_model))
    await asyncio.to_thread(term.wait_for, "trust it? [t]rust / [n]ot now:")
    term.type("t")
    code, out = await asyncio.to_thread(term.finish)
    assert code == 0 and "Trusted for now." in out, term.screen
    assert "could not be remembered" in term.screen and "not valid JSON" in term.screen
    assert marker.exists()
    assert (tmp_path / "data" / "trust.json").read_text() == "{not json"
