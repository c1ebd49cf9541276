"""Fixtures for every test: no test writes to the caches of the user running them; the fake model
servers (a main model, and a small one for titles) that the agent's suites talk to over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from demo.fake_model import FakeModelServer
from tests import attach_mode


@pytest.fixture(autouse=True, scope="session")
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The agent's cache folder (the model map index) in a temp folder shared by the run; servers
    and commands started by the tests inherit it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture
async def model() -> AsyncIterator[FakeModelServer]:
    """The main model: a test scripts its turns."""
    async with FakeModelServer() as srv:
        yield srv


@pytest.fixture
async def title_model() -> AsyncIterator[FakeModelServer]:
    """The small model, which titles sessions: a suite that wants titles answered scripts them."""
    async with FakeModelServer() as srv:
        yield srv


# --- The suites attached (AGENTLS_TEST_HOST=attach): every front end a test spawns attaches to a
# host of the test's own (tests/attach_mode.py). Off otherwise: these then do nothing.
attached_env = attach_mode.attached_env
attached_test = attach_mode.attached_test


def pytest_configure(config: pytest.Config) -> None:
    attach_mode.configure(config)


def pytest_runtest_setup(item: pytest.Item) -> None:
    attach_mode.skip_in_process(item)
