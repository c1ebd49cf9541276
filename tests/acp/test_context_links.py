"""Context items over ACP: resource links ``agentls:changes``, ``agentls:session/<id>``,
``agentls:folder?…`` and ``http(s)://`` reach the model as the editors' @changes, @session, @folder
and @url do. Official SDK client, real ``agentls acp``, a real git project, a page on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from demo.fake_script import Turn
from tests.acp.conftest import Acp
from tests.acp.test_attachments import user_text
from tests.lsp.test_context_items import site  # noqa: F401 - the page fixture


def _link(uri: str) -> dict[str, Any]:
    return {"type": "resource_link", "uri": uri, "name": uri}


def _git(project: Path) -> None:
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=project, check=True)


async def test_changes_session_folder_and_url_links_reach_the_model(acp: Acp, site: str) -> None:  # noqa: F811
    project = acp.project
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("VALUE = 41\n")
    _git(project)
    (project / "pkg" / "mod.py").write_text("VALUE = 42\n")  # an uncommitted change

    acp.model.script(Turn.text("The earlier answer: use tabs."))
    earlier = await acp.run("turn", PROMPT="how do I indent?")
    assert earlier.failure is None, earlier.failure
    session = earlier.results["session"]["sessionId"]

    acp.model.script(Turn.text("Seen."))
    prompts = [
        [
            {"type": "text", "text": "Look."},
            _link("agentls:changes"),
            _link(f"agentls:session/{session}"),
            _link("agentls:folder?path=pkg&files=true"),
            _link(f"{site}/notes"),
        ],
        [{"type": "text", "text": "and this"}, _link("agentls:bogus")],
        [{"type": "text", "text": "and that"}, _link("agentls:session/ses_missing")],
    ]
    acp.model.script(Turn.text("Told."))
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    first, bogus, missing = run.results["answers"]
    assert first == {"stopReason": "end_turn"} and missing == {"stopReason": "end_turn"}
    assert (
        bogus["error"]["code"] == -32602
        and "agentls:changes, agentls:session/<id>" in bogus["error"]["message"]
    )

    sent = user_text(acp.model.requests[-2].body)
    assert "-VALUE = 41" in sent and "+VALUE = 42" in sent  # @changes: the git diff
    assert "use tabs" in sent  # @session: the earlier session's answer
    assert "pkg/mod.py" in sent and "VALUE = 42" in sent  # @folder with its files
    assert "Release notes" in sent and "tabs" in sent  # @url: the page, as webfetch reads it
    # The test site is on 127.0.0.1: the fetch asked for that address, as a fetch dialog.
    local = [e["params"]["toolCall"] for e in run.log if e["kind"] == "permission"]
    assert any(
        c["kind"] == "fetch" and "local network address: 127.0.0.1 (loopback)" in c["title"] for c in local
    ), local
    told = user_text(acp.model.requests[-1].body)
    assert "agentls:session/ses_missing, but it could not be attached" in told
