"""Fixtures: a temporary project and a recording, allow-all tool context over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.tools.context import ToolContext
from tests.unit.tools.harness import Recorder, allow_all


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def ctx(project: Path, tmp_path: Path, recorder: Recorder) -> ToolContext:
    return allow_all(project, tmp_path / "data", recorder)
