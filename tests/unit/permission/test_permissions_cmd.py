"""`agentls permissions list | revoke` against a real store in a temporary data dir."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentls.boot import run
from core.storage import DB_NAME, Store


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    data = tmp_path / "data"
    data.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(data))
    return data, project


async def _seed(data: Path, project: Path, approvals: list[tuple[str, str]]) -> list[str]:
    store = await Store.open(data / DB_NAME)
    try:
        project_id = (await store.ensure_project(project)).id
        return [await store.add_approval(project_id, p, pat) for p, pat in approvals]
    finally:
        await store.close()


def test_list_and_revoke(env: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, project = env
    ids = asyncio.run(_seed(data, project, [("bash", "git status *"), ("edit", "src/a.py")]))
    assert run(["permissions", "-C", str(project), "list"]) == 0
    out = capsys.readouterr().out
    assert f"{ids[0]}" in out and "bash  git status *" in out and "edit  src/a.py" in out

    assert run(["permissions", "-C", str(project), "revoke", ids[0]]) == 0
    capsys.readouterr()
    assert run(["permissions", "-C", str(project), "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["permission"], r["pattern"]) for r in rows] == [(ids[1], "edit", "src/a.py")]


def test_revoke_unknown_id_fails(env: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, project = env
    assert run(["permissions", "-C", str(project), "revoke", "per_nope"]) == 1
    assert "per_nope" in capsys.readouterr().err


def test_empty_list_says_so(env: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, project = env
    assert run(["permissions", "-C", str(project), "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no remembered approvals" in captured.err
