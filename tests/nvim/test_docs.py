"""The help file of the plugin: `:h agentls` works from a runtimepath install (the README's), and the
committed tags are the ones `:helptags` makes of doc/agentls.txt today."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.nvim.harness import PLUGIN
from tests.tools import tool

DOC = PLUGIN / "doc"


def nvim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [tool("nvim"), "--headless", "--clean", *args, "-c", "qa!"]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=30, check=False)


def test_help_works_from_a_runtimepath_install(tmp_path: Path) -> None:
    for topic in ("agentls", ":AgentlsDialog", "agentls-dialogs"):
        done = nvim(
            "--cmd", f"set rtp^={PLUGIN}",
            "-c", f"help {topic}",
            "-c", "lua io.stdout:write(vim.fn.expand('%:t') .. ' ' .. vim.fn.getline('.'))",
            cwd=tmp_path,
        )  # fmt: skip
        assert "E149" not in done.stderr, done.stderr
        assert done.stdout.startswith("agentls.txt "), (topic, done.stdout, done.stderr)
        assert topic.lstrip(":") in done.stdout, (topic, done.stdout)


def test_the_committed_tags_are_up_to_date(tmp_path: Path) -> None:
    fresh = tmp_path / "doc"
    fresh.mkdir()
    shutil.copy(DOC / "agentls.txt", fresh / "agentls.txt")
    done = nvim("-c", f"helptags {fresh}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    committed = (DOC / "tags").read_text() if (DOC / "tags").exists() else ""
    assert committed == (fresh / "tags").read_text(), (
        "editors/nvim/doc/tags is stale: run nvim --headless --clean -c 'helptags editors/nvim/doc' -c q"
    )
