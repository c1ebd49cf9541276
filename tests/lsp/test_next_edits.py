"""Next edits through the real server (issue #41): after the agent renames a parameter, the small
model's edit at a remaining call site is offered as an inline completion and as a code action; it
goes when the line changes; a failing model gives no suggestion and shows the user nothing (and
is asked again at the next pause in typing); with
the feature off nothing is announced and no request reaches the small model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import PLUGIN, serve_command, start, uri

READY = "agent/nextEdit/ready"
UTIL = "def scale(value, factor):\n    return value * factor\n"
RENAMED = "def scale(amount, factor):\n    return amount * factor\n"
MAIN = "from util import scale\n\nprint(scale(value=2, factor=3))\ntotal = scale(value=4, factor=5)\n"
SITE_1 = "print(scale(amount=2, factor=3))"
SITE_2 = "total = scale(amount=4, factor=5)"


@pytest.fixture
async def small() -> AsyncIterator[FakeModelServer]:
    """The small model of these tests (titled sessions ask it for no title)."""
    async with FakeModelServer() as srv:
        yield srv


async def connected(
    tmp_path: Path, project: Path, model: FakeModelServer, small: FakeModelServer, on: bool, profile: str
) -> AsyncIterator[Connected]:
    options: dict[str, Any] = {"config": agent_config(model, small)}
    if on:
        options["nextEdits"] = True
    client, editor, result = await start(
        serve_command(), project, tmp_path / "data", profile, options, ("agent/event", READY)
    )
    editor.saves = profile == PLUGIN
    yield Connected(client, editor, result, project, profile)
    await client.shutdown_session()
    await client.stop()


@pytest.fixture
async def on(
    tmp_path: Path, project: Path, model: FakeModelServer, small: FakeModelServer
) -> AsyncIterator[Connected]:
    async for c in connected(tmp_path, project, model, small, True, PLUGIN):
        yield c


@pytest.fixture
async def off(
    tmp_path: Path, project: Path, model: FakeModelServer, small: FakeModelServer
) -> AsyncIterator[Connected]:
    async for c in connected(tmp_path, project, model, small, False, PLUGIN):
        yield c


@pytest.fixture
async def stock(
    tmp_path: Path, project: Path, model: FakeModelServer, small: FakeModelServer
) -> AsyncIterator[Connected]:
    async for c in connected(tmp_path, project, model, small, True, "neovim@v0.10.0"):
        yield c


async def agent_renames(c: Connected, model: FakeModelServer) -> Path:
    """The agent renames ``value`` to ``amount`` in util.py; main.py is open in the editor."""
    util, main = c.root / "util.py", c.root / "main.py"
    util.write_text(UTIL)
    main.write_text(MAIN)
    c.editor.open(main, MAIN)
    edit = {"filePath": str(util), "oldString": UTIL, "newString": RENAMED}
    model.script(Turn.tool_call("edit", edit), Turn.text("Renamed."))
    if c.profile.startswith(PLUGIN):
        sid = (await c.call("agent/session/create", {"title": "rename"}))["id"]
        parts = [{"type": "text", "text": "rename value to amount"}]
        await c.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    else:  # a stock client: the plain path's session, titled first so the small model titles nothing
        await command(c, "agentls.newSession")
        await command(c, "agentls.mode", "auto")
        await command(c, "agentls.prompt", "rename value to amount")
    assert util.read_text() == RENAMED
    return main


async def command(c: Connected, name: str, *arguments: Any) -> Any:
    params = lsp.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(c.client.workspace_execute_command_async(params), 30)


async def inline(c: Connected, path: Path, line: int, character: int = 0) -> lsp.InlineCompletionList | None:
    params = lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        position=lsp.Position(line=line, character=character),
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Automatic),
    )
    found = await asyncio.wait_for(c.client.text_document_inline_completion_async(params), 10)
    assert found is None or isinstance(found, lsp.InlineCompletionList)
    return found


async def actions(c: Connected, path: Path, line: int) -> list[lsp.CodeAction]:
    where = lsp.Range(start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=0))
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        range=where,
        context=lsp.CodeActionContext(diagnostics=[]),
    )
    found = await asyncio.wait_for(c.client.text_document_code_action_async(params), 30)
    return [a for a in found or [] if isinstance(a, lsp.CodeAction) and a.title.startswith("Apply the agent")]


def ready(c: Connected) -> list[dict[str, Any]]:
    return list(c.editor.notifications.get(READY, []))


async def test_the_agents_rename_is_offered_at_the_next_call_site(
    on: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    assert on.result.capabilities.inline_completion_provider is not None
    small.script(Turn.text(SITE_1), Turn.text(SITE_2))
    main = await agent_renames(on, model)
    await on.editor.wait_for(lambda: len(ready(on)) == 2)
    assert {(r["uri"], r["line"]) for r in ready(on)} == {(uri(main), 2), (uri(main), 3)}

    # What the small model read: the pattern, the agent's hunk, the site.
    asked = small.requests[0].messages[-1]["content"]
    text = asked if isinstance(asked, str) else asked[0]["text"]
    assert "`value` was renamed to `amount`" in text
    assert "-def scale(value, factor):\n-    return value * factor\n+def scale(amount, factor):" in text
    assert "Line to rewrite:\nprint(scale(value=2, factor=3))" in text

    found = await inline(on, main, 2, 5)
    # Only what changes: `value` (columns 12-17) becomes `amount`.
    assert found is not None and [i.insert_text for i in found.items] == ["amount"]
    start, end = lsp.Position(line=2, character=12), lsp.Position(line=2, character=17)
    assert found.items[0].range == lsp.Range(start=start, end=end)
    assert await inline(on, main, 1) is None  # no site on that line

    # The code action applies the same edit, as one workspace edit.
    (action,) = await actions(on, main, 3)
    assert action.title == "Apply the agent's pattern here (`value` was renamed to `amount`)"
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri(main)]
    assert edit.new_text == SITE_2

    # The user types on line 3 (another version): its edit no longer applies; line 4's still does.
    typed = MAIN.replace("print(scale(value=2", "print(scale(value=22")
    on.editor.type(main, typed)
    assert await inline(on, main, 2) is None
    assert await actions(on, main, 2) == []
    still = await inline(on, main, 3)
    assert still is not None and [i.insert_text for i in still.items] == ["amount"]


async def test_a_failing_small_model_gives_no_suggestion_and_no_message_and_is_asked_again_later(
    on: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    small.script(Turn.fault(500, "overloaded"), Turn.text(SITE_2))
    main = await agent_renames(on, model)
    await on.editor.wait_for(lambda: ready(on))
    assert ready(on) == [{"uri": uri(main), "line": 3}]  # the first site's call failed
    assert await inline(on, main, 2) is None
    assert await actions(on, main, 2) == []
    shown = [m for m in on.client.messages if m.type in (lsp.MessageType.Error, lsp.MessageType.Warning)]
    assert shown == []
    # The user goes on typing elsewhere: at the next pause the failed site is asked again (the
    # answered one is not), and this time its edit is offered.
    small.script(Turn.text(SITE_1))
    on.editor.type(main, MAIN + "# done\n")
    await on.editor.wait_for(lambda: len(ready(on)) == 2)
    assert ready(on)[-1] == {"uri": uri(main), "line": 2}
    found = await inline(on, main, 2, 5)
    assert found is not None and [i.insert_text for i in found.items] == ["amount"]
    assert len(small.requests) == 3


async def test_off_nothing_is_announced_and_the_small_model_is_never_asked(
    off: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    assert off.result.capabilities.inline_completion_provider is None
    main = await agent_renames(off, model)
    off.editor.type(main, MAIN.replace("value=2", "amount=2"))  # the user's own edit too
    # A request after the edit: the server has read it (requests are handled in order).
    assert await inline(off, main, 3) is None
    assert await actions(off, main, 3) == []
    assert small.requests == [] and ready(off) == []


async def test_a_stock_client_gets_the_code_action_and_the_user_edit_starts_a_pattern(
    stock: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    main = stock.root / "main.py"
    main.write_text(MAIN)
    stock.editor.open(main, MAIN)
    small.script(Turn.text(SITE_2))
    # The user renames the argument at one call; the other call is the pattern's next site.
    stock.editor.type(main, MAIN.replace("print(scale(value=2", "print(scale(amount=2"))
    logged = lambda: [m for m in stock.client.log_messages if "next edit ready" in m.message]  # noqa: E731
    await stock.editor.wait_for(logged)
    assert logged()[0].message == "agentls: next edit ready at main.py:4"
    (action,) = await actions(stock, main, 3)
    assert action.edit is not None and action.edit.changes is not None
    assert [e.new_text for e in action.edit.changes[uri(main)]] == [SITE_2]
    assert ready(stock) == []  # a stock client gets no agent/* notification


async def test_an_applied_suggestion_joins_the_agents_review_and_undoes_as_its_hunks(
    on: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    small.script(Turn.text(SITE_1), Turn.text(SITE_2))
    main = await agent_renames(on, model)
    await on.editor.wait_for(lambda: len(ready(on)) == 2)
    sid = (await on.call("agent/session/list", {}))["sessions"][0]["id"]
    (action,) = await actions(on, main, 3)
    found = await inline(on, main, 3)
    assert found is not None and found.items[0].command == action.command  # the same record either way
    assert action.command is not None and action.command.command == "agentls.nextEditApplied"
    assert action.edit is not None

    # The editor applies the edit, then runs the command (as LSP clients do with a code action).
    on.editor.apply(lsp.ApplyWorkspaceEditParams(edit=action.edit))
    (hunk,) = await command(on, action.command.command, *(action.command.arguments or []))
    assert (hunk["file"], hunk["before"], hunk["after"]) == (
        "main.py",
        [MAIN.splitlines()[3] + "\n"],
        [SITE_2 + "\n"],
    )
    listed = (await on.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert [h["file"] for h in listed] == ["util.py", "main.py"]

    # Undone as the agent's hunks are: the line as it was, the util.py rename untouched.
    undone = await on.call("agent/review/undo", {"sessionID": sid, "hunkIDs": [hunk["id"]]})
    assert undone["conflicts"] == [] and [h["id"] for h in undone["changed"]] == [hunk["id"]]
    assert on.editor.buffers[uri(main)].text == MAIN
    assert (on.root / "util.py").read_text() == RENAMED
    # The line reads as before the edit: its suggestion is offered again, the model not asked again.
    again = await inline(on, main, 3)
    assert again is not None and [i.insert_text for i in again.items] == ["amount"]
    assert len(small.requests) == 2

    # Recording it again now that the line no longer reads the edit: an error, nothing recorded.
    with pytest.raises(Exception, match="reads 'total = scale\\(value=4, factor=5\\)', not the applied edit"):
        await command(on, action.command.command, *(action.command.arguments or []))
    with pytest.raises(Exception, match="sessionID"):
        await command(on, action.command.command, {**(action.command.arguments or [{}])[0], "sessionID": ""})
    assert len((await on.call("agent/review/list", {"sessionID": sid}))["hunks"]) == 1


async def test_a_pattern_of_the_users_own_edit_is_not_recorded(
    stock: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    main = stock.root / "main.py"
    main.write_text(MAIN)
    stock.editor.open(main, MAIN)
    small.script(Turn.text(SITE_2))
    stock.editor.type(main, MAIN.replace("print(scale(value=2", "print(scale(amount=2"))
    await stock.editor.wait_for(
        lambda: [m for m in stock.client.log_messages if "next edit ready" in m.message]
    )
    (action,) = await actions(stock, main, 3)
    assert action.command is None  # the user's edit, the user's pattern: no review hunk to make


OTHER = "from util import scale\n\nhalf = scale(value=1, factor=0.5)\n"
SITE_OTHER = "half = scale(amount=1, factor=0.5)"


def location(path: Path, line: int, character: int) -> dict[str, Any]:
    pos = {"line": line, "character": character}
    return {"uri": uri(path), "range": {"start": pos, "end": pos}}


@dataclass
class Referencing:
    """A plugin that answers the ``references`` editor query with ``answer(params)``."""

    c: Connected
    asked: list[Any] = field(default_factory=list)
    answer: Callable[[Any], Awaitable[Any]] | None = None


@pytest.fixture
async def referencing(
    tmp_path: Path, project: Path, model: FakeModelServer, small: FakeModelServer
) -> AsyncIterator[Referencing]:
    options = {"config": agent_config(model, small), "nextEdits": True, "editorTimeout": 2}
    profile = f"{PLUGIN}+editor:references"
    client, editor, result = await start(
        serve_command(), project, tmp_path / "data", profile, options, ("agent/event", READY)
    )
    editor.saves = True
    side = Referencing(Connected(client, editor, result, project, profile))

    async def references(params: Any) -> Any:
        side.asked.append(params)
        assert side.answer is not None
        return await side.answer(params)

    client.feature("agent/editorQuery")(references)
    yield side
    await client.shutdown_session()
    await client.stop()


async def test_the_editors_references_bring_the_sites_of_files_no_editor_shows(
    referencing: Referencing, project: Path, model: FakeModelServer, small: FakeModelServer
) -> None:
    util, main, other = project / "util.py", project / "main.py", project / "other.py"
    other.write_text(OTHER)  # on disk, never opened

    async def answer(params: Any) -> Any:
        return [location(util, 0, 4), location(main, 2, 6), location(main, 3, 8), location(other, 2, 7)]

    small.script_for("Line to rewrite:\nprint(scale", Turn.text(SITE_1))
    small.script_for("Line to rewrite:\ntotal = scale", Turn.text(SITE_2))
    small.script_for("Line to rewrite:\nhalf = scale", Turn.text(SITE_OTHER))
    c, referencing.answer = referencing.c, answer
    await agent_renames(c, model)
    await c.editor.wait_for(lambda: len(ready(c)) == 3)
    assert {(r["uri"], r["line"]) for r in ready(c)} == {(uri(main), 2), (uri(main), 3), (uri(other), 2)}
    # Asked once, at the function whose parameter was renamed: `scale` in util.py's first line.
    (query,) = referencing.asked
    assert (query["query"], query["uri"], query["position"]) == (
        "references",
        uri(util),
        {"line": 0, "character": 4},
    )
    # The user opens other.py: its edit is there at once, and the model is not asked again.
    c.editor.open(other, OTHER)
    found = await inline(c, other, 2)
    assert found is not None and [i.insert_text for i in found.items] == ["amount"]
    (action,) = await actions(c, other, 2)
    assert action.edit is not None and action.edit.changes is not None
    assert [e.new_text for e in action.edit.changes[uri(other)]] == [SITE_OTHER]
    assert len(small.requests) == 3


async def test_references_that_fail_leave_the_open_documents_sites_and_show_nothing(
    referencing: Referencing, project: Path, model: FakeModelServer, small: FakeModelServer
) -> None:
    (project / "other.py").write_text(OTHER)
    never = asyncio.Event()

    async def answer(params: Any) -> Any:
        await never.wait()  # an editor whose language server never answers: the query times out

    small.script(Turn.text(SITE_1), Turn.text(SITE_2))
    c, referencing.answer = referencing.c, answer
    main = await agent_renames(c, model)
    await c.editor.wait_for(lambda: len(ready(c)) == 2)
    assert {(r["uri"], r["line"]) for r in ready(c)} == {(uri(main), 2), (uri(main), 3)}
    assert [q["query"] for q in referencing.asked] == ["references"]
    shown = [m for m in c.client.messages if m.type in (lsp.MessageType.Error, lsp.MessageType.Warning)]
    assert shown == []
    never.set()


async def test_a_line_that_reads_the_same_as_one_asked_is_not_asked_again(
    on: Connected, model: FakeModelServer, small: FakeModelServer
) -> None:
    twice = "from util import scale\n\nprint(scale(value=2, factor=3))\nprint(scale(value=2, factor=3))\n"
    small.script(Turn.text(SITE_1), Turn.text("never asked"))
    util, main = on.root / "util.py", on.root / "main.py"
    util.write_text(UTIL)
    main.write_text(twice)
    on.editor.open(main, twice)
    model.script(
        Turn.tool_call("edit", {"filePath": str(util), "oldString": UTIL, "newString": RENAMED}),
        Turn.text("Renamed."),
    )
    sid = (await on.call("agent/session/create", {"title": "rename"}))["id"]
    await on.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
    await on.editor.wait_for(lambda: len(ready(on)) == 2)
    assert {r["line"] for r in ready(on)} == {2, 3} and len(small.requests) == 1
    for line in (2, 3):
        found = await inline(on, main, line)
        assert found is not None and [i.insert_text for i in found.items] == ["amount"]
