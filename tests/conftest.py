"""Fixtures for every test: no test writes to the caches of the user running them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The agent's cache folder (the model map index) in a temp folder shared by the run; servers
    and commands started by the tests inherit it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield
