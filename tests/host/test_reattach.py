"""`kill -9` of the host under attached front ends (`agentls serve`): each says so once, its waiting
calls fail with a clear error, it starts a new host (or attaches to the one another front end
started: two end on one host), lends its buffers again, keeps its subscriptions, and the session
shows every part committed before the kill, its cut-off turn marked interrupted."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.remote.attach import attach
from core.remote.place import socket_path
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.acp import conftest as acp_suite
from tests.acp.conftest import Acp
from tests.ticks import until, until_async

from . import test_acp_attached as acp_attached
from . import test_serve_attached as serve_suite
from .conftest import HostProcess, agentls, stop_leftover_host
from .test_serve_attached import Serve, host_status, until_lent

serves = serve_suite.serves  # the serve suite's fixture: `agentls serve` processes attached
# The ACP suite's fixtures (a project with the fake model, the SDK client) and a host on its data dir.
acp = acp_suite.acp
node_workdir = acp_suite.node_workdir
acp_host = acp_attached.acp_host

INTERRUPTED = "interrupted: the agent host stopped during this turn"


async def start_turn(serve: Serve, text: str = "remember me") -> tuple[str, asyncio.Future[Any]]:
    """A session of ``serve`` and its prompt, once the model's first delta reached the editor."""
    session = await serve.call("agent/session/create", {})
    prompt = asyncio.ensure_future(
        serve.call(
            "agent/session/prompt", {"sessionID": session["id"], "parts": [{"type": "text", "text": text}]}
        )
    )
    await serve.editor.wait_for(lambda: serve.events("message.part.delta", session["id"]))
    return str(session["id"]), prompt


def host_warnings(serve: Serve) -> list[dict[str, Any]]:
    return [e["properties"] for e in serve.events("agent.warning") if e["properties"]["kind"] == "host"]


async def committed_text(session_id: str, project: Path, env: dict[str, str]) -> list[str]:
    """The session's text parts as the store has them now (read by `agentls sessions export`)."""
    code, out, err = await agentls("sessions", "export", session_id, cwd=project, env=env)
    assert code == 0, err
    exported = json.loads(out)
    return [p.get("text", "") for m in exported["messages"] for p in m["parts"] if p["type"] == "text"]


async def reattached(serve: Serve, data_dir: Path, dead: int) -> int:
    """Until ``serve`` answers from a host other than ``dead``; that host's pid."""
    pids: list[int] = []

    async def answered() -> bool:
        try:
            await serve.call("agent/session/list", {})
        except Exception:  # the calls cut off or made before the new host answers
            return False
        status = await host_status_or_none(data_dir)
        if status is not None and status["pid"] != dead:
            pids.append(int(status["pid"]))
            return True
        return False

    await until_async(answered, "serve to answer from a new host", 90)
    return pids[0]


async def host_status_or_none(data_dir: Path) -> dict[str, Any] | None:
    try:
        return await host_status(data_dir)
    except Exception:  # no host listens yet
        return None


async def test_serve_says_once_that_the_host_died_restarts_it_and_the_session_goes_on(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    model.script(Turn.text("never finished", chunks=6).stall(after=2))
    serve = await serves()
    serve.editor.open(project / "calc.py", "x = 1\n")
    session_id, prompt = await start_turn(serve)
    committed: list[list[str]] = []

    async def streamed_text_committed() -> bool:
        committed[:] = [await committed_text(session_id, project, env)]
        return len(committed[0]) == 2 and bool(committed[0][1])

    await until_async(streamed_text_committed, "the host to commit some streamed text", 60)
    os.kill(host.pid, signal.SIGKILL)
    failed = await asyncio.gather(prompt, return_exceptions=True)
    assert "the agent host (pid" in str(failed[0]) and "stopped during prompt" in str(failed[0]), failed
    await serve.editor.wait_for(lambda: host_warnings(serve))
    new_pid = await reattached(serve, data_dir, host.pid)
    assert new_pid != host.pid
    warnings = host_warnings(serve)
    assert len(warnings) == 1 and warnings[0]["sessionID"] == session_id, warnings
    assert f"the agent host (pid {host.pid}) stopped" in warnings[0]["message"]
    # its clients saw the turn end: no spinner left running
    assert serve.events("session.idle", session_id)

    # The new host knows the editor's open buffer again (lent anew).
    await until_lent(data_dir, project / "calc.py")

    async def marked() -> bool:
        messages = await serve.call("agent/session/messages", {"sessionID": session_id})
        last = messages["messages"][-1]["info"]
        return bool(last.get("error")) and last["error"]["message"] == INTERRUPTED

    await until_async(marked, "the cut-off turn to be marked interrupted", 60)
    messages = (await serve.call("agent/session/messages", {"sessionID": session_id}))["messages"]
    texts = [p.get("text") for m in messages for p in m["parts"] if p["type"] == "text"]
    assert texts[0] == "remember me"
    assert texts[1].startswith(committed[0][1]) and "finished" not in texts[1]  # all the dead host committed

    model.script(Turn.text("back again"))
    answer = await serve.call(
        "agent/session/prompt",
        {"sessionID": session_id, "parts": [{"type": "text", "text": "still there?"}]},
        timeout=90,
    )
    assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["back again"]
    assert len(host_warnings(serve)) == 1  # said once
    await agentls("host", "stop", cwd=project, env=env)


async def test_two_serves_attached_to_a_killed_host_end_on_one_new_host(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    first, second = await serves(), await serves()
    os.kill(host.pid, signal.SIGKILL)
    # Both race to start a host: the data dir's lock lets one run, and the other attaches to it.
    pids = await asyncio.gather(reattached(first, data_dir, host.pid), reattached(second, data_dir, host.pid))
    assert pids[0] == pids[1] != host.pid

    async def both_attached() -> bool:
        return (await host_status(data_dir))["clients"] == ["pytest-lsp", "pytest-lsp"]

    await until_async(both_attached, "both serves to be attached to the new host", 60)
    for serve in (first, second):  # each told once, with no session cut off
        warnings = host_warnings(serve)
        assert len(warnings) == 1 and warnings[0].get("sessionID") is None, warnings
    model.script(Turn.text("one host"))
    session = await second.call("agent/session/create", {})
    answer = await first.call(
        "agent/session/prompt",
        {"sessionID": session["id"], "parts": [{"type": "text", "text": "who answers?"}]},
        timeout=90,
    )
    assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["one host"]
    await second.editor.wait_for(lambda: second.events("session.idle", session["id"]), timeout=60)
    await agentls("host", "stop", cwd=project, env=env)


async def test_acp_says_so_in_the_session_and_its_next_prompt_is_answered_by_a_new_host(
    acp_host: HostProcess, acp: Acp, tmp_path: Path
) -> None:
    acp.model.script(Turn.text("never finished", chunks=6).stall(after=2), Turn.text("answered again"))
    ready = tmp_path / "ready"
    run = asyncio.ensure_future(
        acp.run(
            "hostLost",
            PROMPT="remember me",
            PROMPT2="still there?",
            READY_FILE=str(ready),
            **acp_attached.ATTACHED,
        )
    )
    await until(lambda: ready.exists() or run.done(), "the first chunk in the ACP client", 60)
    assert not run.done(), run.result().stderr
    os.kill(acp_host.pid, signal.SIGKILL)
    result = await run
    assert result.failure is None, result.failure
    assert "agent host" in result.results["first"]["error"]["message"], result.results["first"]
    notices = [t for t in result.text().split("\n") if "agent host" in t]
    assert len(notices) == 1 and f"(pid {acp_host.pid}) stopped" in notices[0], notices
    assert result.results["second"] == {"stopReason": "end_turn"}
    assert result.text().endswith("answered again")
    status = await host_status(acp.data)
    assert status["pid"] != acp_host.pid and status["clients"] == []  # the client ended: detached
    session_id = result.results["session"]["sessionId"]

    async def marked() -> bool:
        agent = await attach(acp.project, data_dir=acp.data, client="reader", mode="attach")
        try:
            messages = await agent.messages(session_id)
        finally:
            await agent.close()
        errors = [m.info.error.message for m in messages if m.info.role == "assistant" and m.info.error]
        # this one by crash recovery (no other process had the store open), serve's by the new host
        return errors == ["interrupted: agentls stopped during this turn"]

    await until_async(marked, "the cut-off turn to be marked interrupted", 60)
    stop_leftover_host(acp.data)


async def test_a_host_that_cannot_be_restarted_is_said_and_serve_goes_on_in_process(
    host: HostProcess, project: Path, data_dir: Path, model: FakeModelServer, serves: Callable[..., Any]
) -> None:
    serve = await serves()
    session = await serve.call("agent/session/create", {})
    folder = socket_path(data_dir).parent
    folder.chmod(0o777)  # a socket folder others can open is never used: no host can be reached
    try:
        os.kill(host.pid, signal.SIGKILL)

        def fell_back() -> list[str]:
            return [m.message for m in serve.client.messages if "runs in this process now" in m.message]

        await serve.editor.wait_for(fell_back, timeout=90)
        (text,) = fell_back()
        assert "the agent host could not be restarted" in text, text
        assert "can be opened by other users (mode 777)" in text, text
        await serve.editor.wait_for(lambda: host_warnings(serve), timeout=30)  # (sent a frame later)
        (lost,) = host_warnings(serve)
        assert f"the agent host (pid {host.pid}) stopped" in lost["message"]
        model.script(Turn.text("in this process"))
        answer = await serve.call(
            "agent/session/prompt",
            {"sessionID": session["id"], "parts": [{"type": "text", "text": "still there?"}]},
            timeout=90,
        )
        assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["in this process"]
        # the in-process agent's events reach the editor as the host's did
        await serve.editor.wait_for(lambda: serve.events("session.idle", session["id"]), timeout=60)
        assert len(fell_back()) == 1 and len(host_warnings(serve)) == 1  # each said once
    finally:
        folder.chmod(0o700)
