"""Fixtures for the Neovim plugin tests: a project, the fake models, and a Neovim to run specs in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.nvim.harness import AGENTLS, Nvim
from tests.nvim.notes_site import Site, serve


@pytest.fixture
def nvim(tmp_path: Path) -> Iterator[Nvim]:
    if not AGENTLS.exists():
        pytest.fail(f"{AGENTLS} is missing: run ./scripts/setup")
    project = tmp_path / "project"
    project.mkdir()
    (project / "hello.py").write_text("print('hello')\n")
    home = tmp_path / "home"
    home.mkdir()
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        titles.script(*[Turn.text("A title") for _ in range(20)])
        # Explicit, whatever the server's defaults: edits ask (the specs answer their dialogs), the
        # other tools the specs use run; a spec about another dialog sets its own. (Not "*": the
        # config goes through a Lua table, which does not keep the order the rules need.)
        permission = {"edit": "ask", "todowrite": "allow", "read": "allow"}
        yield Nvim(home, project, model, titles, {"permission": permission})


@pytest.fixture
def notes() -> Iterator[Site]:
    """A page for ``@url``, with the paths fetched from it."""
    with serve() as site:
        yield site


@pytest.fixture
def site(notes: Site) -> str:
    """The address of the ``notes`` page."""
    return notes.url
