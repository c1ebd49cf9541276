"""A stock LSP client (VS Code's stock capabilities, no agent protocol) switches to auto, lets the
agent edit without a dialog, lists the pending hunks, and keeps or undoes one through code actions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config, connect
from tests.lsp.editor import Editor, uri

FILE = "a\nb\nc\nd\ne\n"


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model, permission={"edit": "ask"})}


async def command(connected: Connected, name: str, *arguments: Any) -> Any:
    params = lsp.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(connected.client.workspace_execute_command_async(params), 30)


async def actions_at(connected: Connected, line: int) -> list[lsp.CodeAction]:
    path = connected.root / "hello.py"
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        range=lsp.Range(start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=0)),
        context=lsp.CodeActionContext(diagnostics=[]),
    )
    found = await asyncio.wait_for(connected.client.text_document_code_action_async(params), 30)
    return [a for a in found or [] if isinstance(a, lsp.CodeAction)]


def messages(connected: Connected) -> list[str]:
    return [m.message for m in connected.client.messages]


async def test_auto_then_review_keep_and_undo_through_code_actions(
    vscode: Connected, model: FakeModelServer
) -> None:
    path = vscode.root / "hello.py"
    path.write_text(FILE)
    shown = await command(vscode, "agentls.mode")
    assert shown["mode"] == "ask" and "agentls: mode ask (modes: ask, auto, plan)" in messages(vscode)
    assert (await command(vscode, "agentls.mode", "auto"))["mode"] == "auto"
    assert (await actions_at(vscode, 1)) == []  # nothing to review yet

    edits = [
        {"filePath": str(path), "oldString": o, "newString": n} for o, n in (("b\n", "B\n"), ("d\n", "D\n"))
    ]
    model.script(Turn.tool_call("edit", edits[0]).tool_call("edit", edits[1]), Turn.text("Changed."))
    await command(vscode, "agentls.prompt", "change it")
    assert vscode.editor.dialogs == []  # auto: no dialog for the edits
    assert path.read_text() == "a\nB\nc\nD\ne\n"

    listed = await command(vscode, "agentls.review")
    assert [h["state"] for h in listed] == ["pending", "pending"]
    # The review opens as a diff document (window/showDocument), not as a message.
    review = shown_review(vscode)
    assert review.startswith("# agentls review: 2 pending agent change(s)"), review
    assert f"@@ -2,1 +2,1 @@ {listed[0]['id']}\n-b\n+B\n" in review and "-d\n+D\n" in review

    assert await actions_at(vscode, 2) == []  # line 3: no hunk there
    keep, undo = await actions_at(vscode, 1)
    assert (keep.title, undo.title) == ("Keep agent change (line 2)", "Undo agent change (line 2)")
    assert undo.command is not None and undo.command.command == "agentls.undo"
    result = await command(vscode, undo.command.command, *(undo.command.arguments or []))
    assert [h["state"] for h in result["changed"]] == ["undone"]
    assert path.read_text() == "a\nb\nc\nD\ne\n"
    assert messages(vscode)[-1] == "agentls: undid 1 agent change(s)\n- hello.py: line 2"

    keep_d, _ = await actions_at(vscode, 3)
    assert keep_d.command is not None
    await command(vscode, keep_d.command.command, *(keep_d.command.arguments or []))
    documents = len(vscode.client.shown_documents)
    assert await command(vscode, "agentls.review") == []
    assert messages(vscode)[-1] == "agentls: no agent changes wait for review"
    assert len(vscode.client.shown_documents) == documents  # nothing to open
    assert path.read_text() == "a\nb\nc\nD\ne\n"


async def test_a_bad_mode_is_refused_by_name(vscode: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await command(vscode, "agentls.mode", "yolo")
    assert caught.value.code == -32602 and "ask, auto, plan" in caught.value.message
    effort = await command(vscode, "agentls.effort")
    assert effort["levels"] == [] and "agentls: effort default (levels: none for this model)" in messages(
        vscode
    )


async def test_a_plugin_client_gets_no_hunk_actions(plugin: Connected, model: FakeModelServer) -> None:
    # The same commands, from a plugin client: its hunks are pending, its own review view shows them.
    path = plugin.root / "hello.py"
    await command(plugin, "agentls.mode", "auto")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("ok"))
    await command(plugin, "agentls.prompt", "go")
    assert len(await command(plugin, "agentls.review", {"show": False})) == 1
    assert await actions_at(plugin, 0) == []
    # No lenses or hints either: the plugin draws its own review (they would show twice).
    assert await lenses_of(plugin) == []
    assert uri(path) not in plugin.client.diagnostics


def shown_review(connected: Connected) -> str:
    """The text of the document the server last asked the client to show (a file it wrote)."""
    return Path(to_fs_path(connected.client.shown_documents[-1].uri) or "").read_text()


async def lenses_of(connected: Connected) -> list[tuple[int, str, Any]]:
    document = lsp.TextDocumentIdentifier(uri=uri(connected.root / "hello.py"))
    params = lsp.CodeLensParams(text_document=document)
    found = await asyncio.wait_for(connected.client.text_document_code_lens_async(params), 30)
    return [(x.range.start.line, x.command.title, x.command.arguments) for x in found or [] if x.command]


def hints(connected: Connected) -> list[tuple[int, int, str]]:
    found = connected.client.diagnostics.get(uri(connected.root / "hello.py"), [])
    return [(d.range.start.line, d.range.end.line, d.message) for d in found if d.source == "agentls"]


async def test_pending_hunks_are_code_lenses_and_hints_until_decided(
    vscode: Connected, model: FakeModelServer
) -> None:
    refreshes: list[None] = []

    @vscode.client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def refresh(params: None) -> None:
        refreshes.append(params)
        vscode.editor.arrived.set()

    path = vscode.root / "hello.py"
    path.write_text(FILE)
    await command(vscode, "agentls.mode", "auto")
    assert await lenses_of(vscode) == []
    edits = [
        {"filePath": str(path), "oldString": o, "newString": n} for o, n in (("b\n", "B\n"), ("d\n", "D\n"))
    ]
    model.script(Turn.tool_call("edit", edits[0]).tool_call("edit", edits[1]), Turn.text("Changed."))
    await command(vscode, "agentls.prompt", "change it")
    await vscode.editor.wait_for(lambda: len(hints(vscode)) == 2 and refreshes)
    assert [(start, end) for start, end, _ in hints(vscode)] == [(1, 1), (3, 3)]
    assert "agent change (line 2) waiting for review: Keep or Undo" in hints(vscode)[0][2]
    found = await lenses_of(vscode)
    assert [(line, title) for line, title, _ in found] == [
        (line, title) for line in (1, 3) for title in ("Keep", "Undo", "Diff")
    ]
    # The hint is not a problem to hand to the agent: the cursor on its line gets only Keep / Undo.
    hint = vscode.client.diagnostics[uri(path)][0]
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        range=lsp.Range(start=hint.range.start, end=hint.range.start),
        context=lsp.CodeActionContext(diagnostics=[hint]),
    )
    offered = await vscode.client.text_document_code_action_async(params)
    assert [a.title for a in offered or []] == ["Keep agent change (line 2)", "Undo agent change (line 2)"]

    # "Diff" opens that hunk alone; "Undo" undoes it, and its hint and lenses go.
    _, _, diff_args = found[2]
    await command(vscode, "agentls.review", *diff_args)
    review = shown_review(vscode)
    assert "-b\n+B\n" in review and "+D" not in review
    _, _, undo_args = found[1]
    before = len(refreshes)
    await command(vscode, "agentls.undo", *undo_args)
    await vscode.editor.wait_for(lambda: len(hints(vscode)) == 1 and len(refreshes) > before)
    assert [line for line, _, _ in await lenses_of(vscode)] == [3, 3, 3]
    await command(vscode, "agentls.keep")
    await vscode.editor.wait_for(lambda: hints(vscode) == [])
    assert await lenses_of(vscode) == []


async def test_review_of_a_gone_hunk_says_so(vscode: Connected) -> None:
    await command(vscode, "agentls.review", {"hunkIDs": ["hnk_gone"]})
    assert messages(vscode)[-1] == "agentls: that agent change no longer waits for review"
    with pytest.raises(JsonRpcException) as caught:
        await command(vscode, "agentls.review", {"show": "maybe"})
    assert caught.value.code == -32602 and "show" in caught.value.message


async def test_a_client_with_document_content_gets_the_review_as_a_virtual_document(
    tmp_path: Path, project: Path, options: Any, model: FakeModelServer
) -> None:
    registered: list[lsp.RegistrationParams] = []

    def prepare(editor: Editor) -> None:
        @editor.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def register(params: lsp.RegistrationParams) -> None:
            registered.append(params)

    async for client in connect(tmp_path, project, "visual-studio-code+content", options, prepare):
        path = client.root / "hello.py"
        await command(client, "agentls.mode", "auto")
        edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
        model.script(Turn.tool_call("edit", edit))
        await command(client, "agentls.prompt", "change it")
        await command(client, "agentls.review")
        # The scheme is registered once; the review is a document the server serves, not a file.
        (registration,) = [r for params in registered for r in params.registrations]
        assert registration.method == "workspace/textDocumentContent"
        shown = client.client.shown_documents[-1].uri
        assert shown.startswith("agentls:/review/") and shown.endswith(".diff"), shown
        params = lsp.TextDocumentContentParams(uri=shown)
        answer = await client.client.protocol.send_request_async(lsp.WORKSPACE_TEXT_DOCUMENT_CONTENT, params)
        assert "+print('bye')" in answer.text and "--- a/hello.py" in answer.text, answer.text
        with pytest.raises(JsonRpcException) as caught:
            gone = lsp.TextDocumentContentParams(uri="agentls:/review/ses_gone-0.diff")
            await client.client.protocol.send_request_async(lsp.WORKSPACE_TEXT_DOCUMENT_CONTENT, gone)
        assert caught.value.code == -32602


async def test_a_background_sub_agents_change_is_marked_as_its_in_the_parents_review(
    vscode: Connected, model: FakeModelServer
) -> None:
    """The sub-agent's hunk is recorded in its own session; the hint, the code actions and the
    review document of the session the client shows say whose it is, and Undo works from there."""
    path = vscode.root / "hello.py"
    path.write_text(FILE)
    await command(vscode, "agentls.mode", "auto")
    job = {
        "description": "capitalise b",
        "prompt": "JOB-CAP: do it",
        "subagent_type": "general",
        "background": True,
    }
    model.script(Turn.tool_call("task", job), Turn.text("It runs."), Turn.text("Noted."))
    model.script_for(
        "JOB-CAP",
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "b\n", "newString": "B\n"}),
        Turn.text("Done."),
    )
    await command(vscode, "agentls.prompt", "capitalise b in the background")
    await vscode.editor.wait_for(lambda: len(hints(vscode)) == 1)
    assert hints(vscode)[0][2].startswith(
        "agent change (line 2) by @general: capitalise b waiting for review: Keep or Undo"
    )
    titles = [a.title for a in await actions_at(vscode, 1)]
    assert titles == [
        "Keep agent change (line 2 by @general: capitalise b)",
        "Undo agent change (line 2 by @general: capitalise b)",
    ]
    await command(vscode, "agentls.review")
    assert "by @general: capitalise b" in shown_review(vscode)
    (undo,) = [a for a in await actions_at(vscode, 1) if a.title.startswith("Undo")]
    assert undo.command is not None
    await command(vscode, undo.command.command, *(undo.command.arguments or []))
    await vscode.editor.wait_for(lambda: hints(vscode) == [])
    assert path.read_text() == FILE
