"""Mode and effort chosen outside the ACP client reach it as ``config_option_update``, and the effort
levels offered follow the model the next prompt goes to."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.acp.conftest import Acp, Run
from tests.lsp.editor import PLUGIN, serve_command, start


def _options(response: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in response["configOptions"]}


def _thinking(acp: Acp) -> None:
    """fake/m offers effort levels (an OpenAI reasoning switch); titles/t offers none."""
    config = json.loads((acp.project / "agentls.json").read_text())
    config["provider"]["fake"]["models"]["m"]["options"] = {"agentls_thinking": "openai"}
    (acp.project / "agentls.json").write_text(json.dumps(config))


async def test_the_effort_levels_follow_the_model_chosen_for_the_next_prompt(acp: Acp) -> None:
    _thinking(acp)
    run = await acp.run("options", CONFIG=json.dumps([["model", "titles/t"], ["model", "fake/m"]]))
    assert run.failure is None, run.failure
    assert [o["value"] for o in _options(run.results["session"])["effort"]["options"]][1:] == [
        "low",
        "medium",
        "high",
    ]
    to_titles, back = run.results["set"]
    assert "effort" not in _options(to_titles)  # titles/t cannot be steered: no levels offered
    assert _options(back)["effort"]["currentValue"] == "default"


async def _fifo(path: Path) -> str:
    """What the client writes into the named pipe ``path`` (reading waits for it, no polling)."""
    reading = asyncio.ensure_future(asyncio.to_thread(path.read_text))
    done, _ = await asyncio.wait([reading], timeout=30)
    if not done:  # the client never wrote: open the pipe's other end so the reading thread ends
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        await reading
        raise AssertionError("the ACP client never opened its session")
    return reading.result()


async def _changed_by_an_editor(
    acp: Acp, tmp_path: Path, method: str, params: dict[str, Any], option: str, value: str
) -> Run:
    ready = tmp_path / "ready"
    os.mkfifo(ready)
    watching = asyncio.ensure_future(
        acp.run("watch", READY_FILE=str(ready), WATCH_OPTION=option, WATCH_VALUE=value)
    )
    session_id = await _fifo(ready)
    client, _editor, _ = await start(serve_command(), acp.project, acp.data, PLUGIN, None)
    try:
        await client.protocol.send_request_async(method, {"sessionID": session_id, **params})
        run = await watching
    finally:
        await client.shutdown_session()
        await client.stop()
    assert run.failure is None, run.failure
    return run


async def test_a_mode_chosen_in_an_editor_reaches_the_acp_client(acp: Acp, tmp_path: Path) -> None:
    run = await _changed_by_an_editor(
        acp, tmp_path, "agent/session/mode", {"mode": "plan"}, "autonomy", "plan"
    )
    assert _options(run.results["seen"])["autonomy"]["currentValue"] == "plan"


async def test_an_effort_chosen_in_an_editor_reaches_the_acp_client(acp: Acp, tmp_path: Path) -> None:
    _thinking(acp)
    run = await _changed_by_an_editor(
        acp, tmp_path, "agent/session/effort", {"effort": "high"}, "effort", "high"
    )
    assert _options(run.results["seen"])["effort"]["currentValue"] == "high"
