"""``agentls run`` fetching from real servers on loopback addresses, as a user runs it: an allowed
origin cannot hand the model another origin's page, allowing webfetch does not reach this
machine, and a page that drips ends at the fetch's deadline."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.unit.tools.websites import Site, serving

from .conftest import fake_config
from .test_cli import agentls, clean_env


@pytest.fixture
def approved() -> Iterator[Site]:
    with serving(Site("127.0.0.1")) as site:
        site.page("/page", b"<h1>Approved page</h1>")
        yield site


@pytest.fixture
def elsewhere() -> Iterator[Site]:
    with serving(Site("127.0.0.2")) as site:
        site.page("/secret", b"SECRET OF ANOTHER HOST", "text/plain")
        yield site


def env_with(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer, permission: dict[str, Any]
) -> dict[str, str]:
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, permission=permission))
    return env


def tool_results(model: FakeModelServer, index: int) -> str:
    return json.dumps([m.get("content") for m in model.requests[index].messages if m.get("role") == "tool"])


async def test_a_redirect_from_an_approved_origin_to_another_host_is_not_followed(
    tmp_path: Path,
    project: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
    approved: Site,
    elsewhere: Site,
) -> None:
    target = f"{elsewhere.url}/secret"
    approved.redirect("/docs", target)
    # The user allowed this one origin, and its address; nothing else (no terminal: the rest is refused).
    permission = {
        "webfetch": {f"{approved.url}/*": "allow"},
        "local_network": {f"127.0.0.1:{approved.port}": "allow"},
    }
    env = env_with(tmp_path, model, title_model, permission)
    model.script(Turn.tool_call("webfetch", {"url": f"{approved.url}/docs"}), Turn.text("It moved."))
    code, out, err = await agentls("run", "read the docs", cwd=project, env=env)
    assert code == 0, err
    assert "It moved." in out
    told = tool_results(model, 1)
    assert f"redirects (HTTP 302) to {target}" in told and "not followed" in told, told
    assert "SECRET" not in told and elsewhere.requests == []

    # The model follows the hint: fetching the target asks for its origin, which nobody allowed.
    model.script(Turn.tool_call("webfetch", {"url": target}), Turn.text("Refused."))
    code, _, err = await agentls("run", "then fetch it", cwd=project, env=env)
    assert code == 1
    assert f"needed permission for webfetch ({target})" in err, err
    assert elsewhere.requests == []


async def test_allowing_webfetch_does_not_allow_this_machine(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, approved: Site
) -> None:
    env = env_with(tmp_path, model, title_model, {"webfetch": "allow"})
    model.script(Turn.tool_call("webfetch", {"url": f"{approved.url}/page"}), Turn.text("Refused."))
    code, _, err = await agentls("run", "fetch the page", cwd=project, env=env)
    assert code == 1
    assert f"needed permission for local_network (127.0.0.1:{approved.port})" in err, err
    assert approved.requests == []


async def test_a_page_that_sends_a_byte_a_second_ends_at_the_fetch_deadline(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, approved: Site
) -> None:
    approved.drip("/drip", every=1.0)
    env = env_with(tmp_path, model, title_model, {"webfetch": "allow", "local_network": "allow"})
    call = {"url": f"{approved.url}/drip", "format": "text", "timeout": 3}
    model.script(Turn.tool_call("webfetch", call), Turn.text("Too slow."))
    started = time.monotonic()
    code, out, err = await agentls("run", "fetch the slow page", cwd=project, env=env)
    elapsed = time.monotonic() - started
    assert code == 0, err
    assert "timed out: it took more than 3 s in all" in tool_results(model, 1)
    assert "Too slow." in out
    assert elapsed < 3 + 15, elapsed  # the start of agentls and the model, not the page's 600 s
