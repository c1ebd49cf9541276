"""`agentls config` run as a real subprocess with HOME and the agentls folders inside tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

AGENTLS = Path(sys.executable).parent / "agentls"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def run_cli(tmp_path: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLS_", "XDG_"))}
    clean |= {
        "HOME": str(tmp_path / "home"),
        "AGENTLS_CONFIG_DIR": str(tmp_path / "user-config"),
        "AGENTLS_DATA_DIR": str(tmp_path / "data"),
        **env,
    }
    return subprocess.run(
        [str(AGENTLS), "config", *args], cwd=cwd, env=clean, capture_output=True, text=True, timeout=60
    )


def test_prints_resolved_config_as_json(tmp_path: Path, project: Path) -> None:
    (tmp_path / "user-config" / "agentls.json").write_text('{"small_model": "user/s"}')
    (project / "agentls.jsonc").write_text('{"model": "local/m", // comment\n "snapshot": false,}')
    result = run_cli(tmp_path, project)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["model"], data["small_model"]) == ("local/m", "user/s")
    assert data["snapshot"]["enabled"] is False
    assert data["compaction"]["tail_turns"] == 2
    assert result.stderr == ""


def test_sources_lists_each_value_with_its_layer(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{"model": "local/m", "instructions": ["AGENTS.md"]}')
    result = run_cli(tmp_path, project, "--sources", AGENTLS_DISABLE_PRUNE="1")
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines()}
    assert lines["model"].endswith(f"(project {project.resolve() / 'agentls.json'})")
    assert lines["instructions[0]"].endswith(f"(project {project.resolve() / 'agentls.json'})")
    assert lines["compaction.prune"].startswith("compaction.prune = false")
    assert lines["compaction.prune"].endswith("(environment)")
    assert lines["compaction.auto"].endswith("(default)")


def test_directory_option(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{"default_agent": "plan"}')
    result = run_cli(tmp_path, tmp_path, "-C", str(project))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["default_agent"] == "plan"


def test_secrets_are_masked_unless_asked(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{"provider": {"p": {"options": {"api_key": "{env:THE_KEY}"}}}}')
    masked = run_cli(tmp_path, project, THE_KEY="sk-123")
    assert "sk-123" not in masked.stdout
    assert json.loads(masked.stdout)["provider"]["p"]["options"]["api_key"] == "********"
    shown = run_cli(tmp_path, project, "--show-secrets", THE_KEY="sk-123")
    assert json.loads(shown.stdout)["provider"]["p"]["options"]["api_key"] == "sk-123"


def test_warnings_go_to_stderr(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{"modle": "x/y"}')
    result = run_cli(tmp_path, project)
    assert result.returncode == 0
    assert json.loads(result.stdout)["modle"] == "x/y"
    assert "warning:" in result.stderr
    assert "unknown key modle" in result.stderr


def test_invalid_config_exits_1_without_traceback(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{"tool_output": {"max_bytes": "lots"}}')
    result = run_cli(tmp_path, project)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    path = project.resolve() / "agentls.json"
    assert result.stderr.strip() == (
        f"agentls: project {path}: tool_output.max_bytes: must be a whole number (got 'lots')"
    )


def test_bad_json_exits_1_with_line_and_column(tmp_path: Path, project: Path) -> None:
    (project / "agentls.json").write_text('{\n  "model": "a/b",\n  oops\n}')
    result = run_cli(tmp_path, project)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{project.resolve() / 'agentls.json'}:3:3: invalid JSON" in result.stderr


def test_missing_directory_is_a_usage_error(tmp_path: Path, project: Path) -> None:
    result = run_cli(tmp_path, project, "-C", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "is not a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_untrusted_resolves_without_the_projects_own_files(tmp_path: Path, project: Path) -> None:
    # What a server started for an untrusted project resolves (initializationOptions.untrusted).
    (tmp_path / "user-config" / "agentls.json").write_text('{"model": "user/m"}')
    (project / "agentls.json").write_text('{"model": "project/m", "instructions": 5}')
    (project / ".agentls").mkdir()
    (project / ".agentls" / "agentls.json").write_text('{"small_model": "project/s"}')
    assert run_cli(tmp_path, project).returncode == 1  # trusted: the project's broken file counts
    result = run_cli(tmp_path, project, "--untrusted", "--sources")
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines()}
    assert lines["model"].startswith('model = "user/m"'), lines["model"]
    assert lines["small_model"].startswith("small_model = null"), lines["small_model"]
    assert "project" not in result.stdout


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path, project: Path) -> None:
    # `agentls config | head -1`: the pipe closes before the config is written.
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLS_", "XDG_"))}
    clean |= {"HOME": str(tmp_path / "home"), "AGENTLS_CONFIG_DIR": str(tmp_path / "user-config")}
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [str(AGENTLS), "config"], cwd=project, env=clean, stdout=write, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write)
    assert result.returncode == 1
    assert result.stderr == ""
