"""``Sandbox`` as the tools use it: full mode passes through, a machine without a backend falls back
to the rules alone (said once), and the bash tool's dialog says when a command runs unsandboxed."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from core.commands.shell import shell_runner
from core.config.schema import SandboxConfig
from core.sandbox.detect import Backend
from core.sandbox.sandbox import Sandbox, once
from core.tools.bash import BashParams, BashTool
from tests.unit.tools.harness import Recorder, allow_all


def no_backend() -> Backend:
    return Backend(None, "bubblewrap (bwrap) is not installed")


class Notices:
    def __init__(self) -> None:
        self.said: list[tuple[str, str | None]] = []

    def __call__(self, message: str, session_id: str | None) -> None:
        self.said.append((message, session_id))


def test_full_mode_runs_the_command_as_given(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxConfig(mode="full"), [tmp_path], Notices(), backend=no_backend)
    confined = sandbox.confine(["sh", "-c", "x"], tmp_path, {"GH_TOKEN": "t"})
    assert confined.argv == ["sh", "-c", "x"] and confined.env == {"GH_TOKEN": "t"}
    assert confined.policy is None and not sandbox.protection().active


def test_without_a_backend_it_says_so_once_and_runs_on_the_rules(tmp_path: Path) -> None:
    notices = Notices()
    sandbox = Sandbox(SandboxConfig(), [tmp_path], once(notices), backend=no_backend)
    for _ in range(3):
        confined = sandbox.confine(["true"], tmp_path, {}, session_id="ses_1")
        assert confined.argv == ["true"] and confined.policy is None
    assert len(notices.said) == 1
    message, session = notices.said[0]
    assert session == "ses_1"
    assert "without an OS sandbox" in message and "bwrap) is not installed" in message
    assert "agentls doctor" in message
    assert sandbox.protection().describe().startswith("rules alone")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
def test_with_bubblewrap_the_command_is_wrapped_and_secrets_dropped(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxConfig(), [tmp_path], Notices())
    confined = sandbox.confine(["true"], tmp_path, {"GH_TOKEN": "t", "PATH": "/bin"})
    assert confined.argv[0].endswith("bwrap") and confined.argv[-1] == "true"
    assert "GH_TOKEN" not in confined.env and confined.env["PATH"] == "/bin"
    assert confined.policy is not None and confined.env["TMPDIR"] == str(confined.policy.tmpdir)
    assert sandbox.protection().describe().startswith("workspace-write sandbox by bubblewrap")


@pytest.mark.parametrize(
    ("config", "backend", "marked"),
    [
        (SandboxConfig(mode="full"), no_backend, True),
        (SandboxConfig(), no_backend, True),
        (SandboxConfig(), lambda: Backend("bubblewrap", "/usr/bin/bwrap", "/usr/bin/bwrap"), False),
    ],
)
async def test_the_bash_dialog_says_when_a_command_runs_unsandboxed(
    tmp_path: Path, config: SandboxConfig, backend: object, marked: bool
) -> None:
    recorder = Recorder()
    sandbox = Sandbox(config, [tmp_path], Notices(), backend=backend)  # type: ignore[arg-type]
    ctx = allow_all(tmp_path, tmp_path / "data", recorder, sandbox=sandbox)
    await BashTool().prepare(BashParams(command="ls"), ctx)
    (ask,) = recorder.asks
    assert ("(runs without a sandbox)" in ask.title) is marked
    assert (ask.metadata.get("sandbox") == "none") is marked


async def test_a_command_template_line_asks_marked_when_unsandboxed(tmp_path: Path) -> None:
    recorder = Recorder()
    sandbox = Sandbox(SandboxConfig(mode="full"), [tmp_path], Notices(), backend=no_backend)
    run = shell_runner(recorder.ask, tmp_path, tmp_path, asyncio.Event(), sandbox=sandbox)
    assert await run("echo hi") == "hi"
    (ask,) = recorder.asks
    assert ask.title.endswith("(runs without a sandbox)")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
async def test_a_command_template_line_runs_confined(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    recorder = Recorder()
    sandbox = Sandbox(SandboxConfig(), [project], Notices())
    run = shell_runner(recorder.ask, project, project, asyncio.Event(), sandbox=sandbox)
    text = await run(f"echo in > here.txt; echo out > {outside}/there.txt")
    assert (project / "here.txt").exists() and not (outside / "there.txt").exists()
    assert f"(The sandbox (workspace-write) blocked writing to {outside}/there.txt" in text
    assert "(exit code 1)" in text
    assert "runs without a sandbox" not in recorder.asks[0].title
