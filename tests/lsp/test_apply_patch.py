"""apply_patch through the real server, as a GPT-5 codex model uses it: it is offered instead of
edit/write, reads and writes the editor's buffers, asks one dialog per file with its diff, leaves
review hunks that undo takes back, and a patch that does not fit changes nothing and names the hunk."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri

MODEL = "gpt-5-codex"  # a name of the family trained on the patch format, served by the fake server


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    config = agent_config(model, title_model, permission={"edit": "ask"})
    config["model"] = f"fake/{MODEL}"
    config["provider"]["fake"]["models"] = {MODEL: {"limit": {"context": 100_000, "output": 4_000}}}
    return {"config": config}


def patch(*body: str) -> dict[str, str]:
    return {"input": "\n".join(["*** Begin Patch", *body, "*** End Patch"])}


def asked(plugin: Connected) -> list[dict[str, Any]]:
    return [e["properties"]["request"] for e in plugin.events("permission.asked")]


async def start_turn(plugin: Connected, sid: str) -> asyncio.Future[Any]:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    return asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))


def tool_results(model: FakeModelServer) -> str:
    return str([m for m in model.requests[-1].messages if m.get("role") == "tool"])


async def test_a_patch_over_the_editors_buffer_lands_as_hunks_that_undo_takes_back(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    unsaved = "print('hello')\nname = 'world'\n"  # typed in the editor, not saved: the patch sees it
    plugin.editor.open(path, unsaved)
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    model.script(
        Turn.tool_call(
            "apply_patch",
            patch(
                "*** Update File: hello.py",
                "@@",
                "-print('hello')",
                "+from greet import greet",
                "+print(greet(name))",
                " name = 'world'",
                "*** Add File: greet.py",
                "+def greet(who):",
                "+    return f'hello {who}'",
            ),
        ),
        Turn.text("Done."),
    )
    await asyncio.wait_for(await start_turn(plugin, sid), 60)

    offered = {t["function"]["name"] for t in model.requests[0].tools}
    assert "apply_patch" in offered and not offered & {"edit", "write"}
    assert (
        plugin.editor.buffers[uri(path)].text
        == "from greet import greet\nprint(greet(name))\nname = 'world'\n"
    )
    assert (plugin.root / "greet.py").read_text() == "def greet(who):\n    return f'hello {who}'\n"
    assert "Applied the patch:\\nM hello.py\\nA greet.py" in tool_results(model)

    hunks = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert sorted((h["file"], h["kind"]) for h in hunks) == [("greet.py", "created"), ("hello.py", "text")]
    undone = await plugin.call("agent/review/undo", {"sessionID": sid})
    assert undone["conflicts"] == [] and len(undone["changed"]) == 2
    assert plugin.editor.buffers[uri(path)].text == unsaved
    assert not (plugin.root / "greet.py").exists()


async def test_ask_mode_shows_each_files_diff_and_a_misfit_changes_nothing(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    misfit = patch(
        "*** Add File: other.py",
        "+x = 1",
        "*** Update File: hello.py",
        "@@",
        "-print('goodbye')",
        "+print('hi')",
    )
    good = patch("*** Update File: hello.py", "-print('hello')", "+print('hi')", "*** Delete File: gone.py")
    (plugin.root / "gone.py").write_text("old = True\n")
    model.script(
        Turn.tool_call("apply_patch", misfit), Turn.tool_call("apply_patch", good), Turn.text("Done.")
    )
    turn = await start_turn(plugin, sid)

    # One dialog per file, in the patch's order; the next is asked once the first is answered.
    (first,) = await plugin.editor.wait_for(lambda: asked(plugin))
    assert (first["title"], first["patterns"]) == ("Patch hello.py", ["hello.py"])
    assert "-print('hello')\n+print('hi')\n" in first["metadata"]["diff"]
    # The misfit was refused before any dialog, and nothing of it was written.
    assert not (plugin.root / "other.py").exists()
    await plugin.call("agent/permission/reply", {"requestID": first["id"], "reply": "once"})
    _, second = await plugin.editor.wait_for(lambda: asked(plugin) if len(asked(plugin)) == 2 else None)
    assert (second["title"], second["patterns"]) == ("Delete gone.py", ["gone.py"])
    assert "-old = True\n" in second["metadata"]["diff"]
    # Nothing is written until every file's dialog is answered.
    assert path.read_text() == "print('hello')\n" and (plugin.root / "gone.py").exists()
    await plugin.call("agent/permission/reply", {"requestID": second["id"], "reply": "once"})
    await asyncio.wait_for(turn, 60)
    assert path.read_text() == "print('hi')\n" and not (plugin.root / "gone.py").exists()
    misfit_result = str([m for m in model.requests[1].messages if m.get("role") == "tool"])
    assert "Hunk 1 of hello.py does not apply" in misfit_result and "print('goodbye')" in misfit_result
