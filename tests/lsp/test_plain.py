"""A client with VS Code's stock capabilities (no agent protocol): commands, progress, dialogs, actions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model, permission={"edit": "ask"})}


async def command(connected: Connected, name: str, *arguments: Any) -> Any:
    params = lsp.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(connected.client.workspace_execute_command_async(params), 30)


def progress(connected: Connected) -> list[Any]:
    return [value for values in connected.client.progress_reports.values() for value in values]


async def test_prompt_command_with_permission_dialog_progress_log_and_answer(
    vscode: Connected, model: FakeModelServer
) -> None:
    path = vscode.root / "hello.py"
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Done: it says bye now."))
    vscode.editor.dialog_answers.append("Allow once")
    result = await command(vscode, "agentls.prompt", "say bye instead")
    assert result["text"] == "Done: it says bye now."
    assert path.read_text() == "print('bye')\n"
    (dialog,) = vscode.editor.dialogs
    assert "edit" in dialog.message and "hello.py" in dialog.message
    assert [a.title for a in dialog.actions or []] == ["Allow once", "Always allow", "Reject"]
    kinds = [type(v).__name__ for v in progress(vscode)]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert progress(vscode)[0].cancellable is True
    assert any(m.message == "Done: it says bye now." for m in vscode.client.messages)
    assert any("✓ edit" in m.message for m in vscode.client.log_messages)
    assert vscode.events() == []  # no custom notifications for a stock client
    # The next prompt continues the same (current) session.
    model.script(Turn.text("Still here."))
    again = await command(vscode, "agentls.prompt", {"text": "and now?"})
    assert again["sessionID"] == result["sessionID"]


async def test_rejected_dialog_tells_the_model(vscode: Connected, model: FakeModelServer) -> None:
    path = vscode.root / "hello.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "hello", "newString": "bye"}),
        Turn.text("Understood."),
    )
    vscode.editor.dialog_answers.append("Reject")
    await command(vscode, "agentls.prompt", "say bye")
    assert path.read_text() == "print('hello')\n"


async def test_cancelling_the_progress_aborts_the_turn(vscode: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("thinking very long", chunks=6).stall(after=2))
    running = asyncio.ensure_future(command(vscode, "agentls.prompt", "go"))
    (token,) = await vscode.editor.wait_for(lambda: list(vscode.client.progress_reports))
    await model.wait_for_requests(1)
    vscode.client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    result = await running
    messages = (await vscode.call("agent/session/messages", {"sessionID": result["sessionID"]}))["messages"]
    assert messages[-1]["info"]["error"]["name"] == "aborted"
    assert any(m.type == lsp.MessageType.Error for m in vscode.client.messages)
    assert type(progress(vscode)[-1]).__name__ == "WorkDoneProgressEnd"


async def test_new_session_abort_and_compact_commands(vscode: Connected, model: FakeModelServer) -> None:
    first = await command(vscode, "agentls.newSession", "mine")
    assert first["title"] == "mine"
    assert await command(vscode, "agentls.abort") is None
    model.script(Turn.text("hi"))
    result = await command(vscode, "agentls.prompt", "hello")
    assert result["sessionID"] == first["id"]
    model.script(Turn.text("A summary of the conversation."))
    compacted = await command(vscode, "agentls.compact")
    assert compacted["info"]["sessionID"] == first["id"]


def diagnostic(message: str) -> lsp.Diagnostic:
    rng = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=5))
    return lsp.Diagnostic(range=rng, message=message, severity=lsp.DiagnosticSeverity.Error)


SELECTION = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=14))
CURSOR = lsp.Range(start=lsp.Position(line=0, character=3), end=lsp.Position(line=0, character=3))


async def code_actions(
    connected: Connected, diagnostics: list[lsp.Diagnostic], rng: lsp.Range = SELECTION, **kw: Any
) -> list[Any]:
    path = connected.root / "hello.py"
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        range=rng,
        context=lsp.CodeActionContext(diagnostics=diagnostics, **kw),
    )
    return list(await connected.client.text_document_code_action_async(params) or [])


async def test_code_actions_on_a_diagnostic_and_a_selection(
    vscode: Connected, model: FakeModelServer
) -> None:
    vscode.editor.open(vscode.root / "hello.py", "prnt('hello')\n")
    actions = await code_actions(vscode, [diagnostic("name 'prnt' is not defined")])
    titles = [a.title for a in actions]
    assert titles == [
        "Ask agent to fix: name 'prnt' is not defined",
        "Ask agent to fix line 1",
        "Explain with agent",
    ]
    only_fixes = await code_actions(vscode, [diagnostic("x")], only=[lsp.CodeActionKind.QuickFix])
    assert [a.title for a in only_fixes] == ["Ask agent to fix: x", "Ask agent to fix line 1"]

    model.script(Turn.text("Fixed the typo."))
    fix = actions[0].command
    result = await command(vscode, fix.command, *fix.arguments)
    assert result["text"] == "Fixed the typo."
    sent = str(model.requests[0].messages)
    # The prompt carries the diagnostic, the file, the line and the (unsaved) code.
    assert "name 'prnt' is not defined" in sent and "hello.py" in sent and "prnt('hello')" in sent

    model.script(Turn.text("It prints hello."))
    explain = actions[2].command
    assert (await command(vscode, explain.command, *explain.arguments))["text"] == "It prints hello."


async def test_question_dialog_answers_with_the_chosen_option(
    vscode: Connected, model: FakeModelServer
) -> None:
    question = {
        "question": "Which runner?",
        "header": "Tests",
        "options": [{"label": "pytest"}, {"label": "nose"}],
    }
    model.script(Turn.tool_call("question", {"questions": [question]}), Turn.text("Using nose."))
    vscode.editor.dialog_answers.append("nose")
    await command(vscode, "agentls.prompt", "set up tests")
    (dialog,) = vscode.editor.dialogs
    assert dialog.message == "Tests: Which runner?"
    assert [a.title for a in dialog.actions or []] == ["pytest", "nose", "Dismiss"]
    assert "nose" in str(model.requests[1].messages[-1])


async def test_closing_a_question_dialog_dismisses_it(vscode: Connected, model: FakeModelServer) -> None:
    question = {"question": "Which runner?", "header": "Tests", "options": [{"label": "pytest"}]}
    model.script(Turn.tool_call("question", {"questions": [question]}), Turn.text("OK, no tests."))
    # No queued answer: the user closes the dialog.
    result = await command(vscode, "agentls.prompt", "set up tests")
    messages = (await vscode.call("agent/session/messages", {"sessionID": result["sessionID"]}))["messages"]
    (tool,) = [p for m in messages for p in m["parts"] if p["type"] == "tool"]
    assert tool["state"]["status"] == "error" and "dismissed" in tool["state"]["error"]


async def test_fix_is_offered_only_on_a_diagnostic_or_a_selection(
    vscode: Connected, model: FakeModelServer
) -> None:
    vscode.editor.open(vscode.root / "hello.py", "prnt('hello')\n")
    # A bare cursor with no diagnostic: no lightbulb (it used to be on every line).
    assert await code_actions(vscode, [], rng=CURSOR) == []
    # A cursor on a diagnostic: the fix of that diagnostic only.
    on_problem = await code_actions(vscode, [diagnostic("name 'prnt' is not defined")], rng=CURSOR)
    assert [a.title for a in on_problem] == ["Ask agent to fix: name 'prnt' is not defined"]
    # A selection with no diagnostic (stock clients send only this server's, which are none).
    (fix,) = await code_actions(vscode, [], only=[lsp.CodeActionKind.QuickFix])
    assert fix.title == "Ask agent to fix line 1"
    model.script(Turn.text("Looked at it."))
    await command(vscode, fix.command.command, *fix.command.arguments)
    sent = str(model.requests[0].messages)
    assert "No diagnostic came with this request" in sent and "prnt('hello')" in sent
    assert "no problem here" not in sent
    # Other servers' diagnostics in the request all reach the prompt.
    two = [diagnostic("name 'prnt' is not defined"), diagnostic("missing docstring")]
    *_, fix = await code_actions(vscode, two, only=[lsp.CodeActionKind.QuickFix])
    assert fix.title == "Ask agent to fix line 1"
    model.script(Turn.text("Fixed both."))
    await command(vscode, fix.command.command, *fix.command.arguments)
    sent = str(model.requests[1].messages)
    assert "1:1 name 'prnt' is not defined" in sent and "1:1 missing docstring" in sent


async def test_async_prompt_answers_at_once_and_delivers_the_answer_as_a_message(
    vscode: Connected, model: FakeModelServer
) -> None:
    gate = asyncio.Event()
    model.script(Turn.text("a slow answer", chunks=4).slow_first_byte(gate))
    result = await command(vscode, "agentls.prompt", {"text": "take your time", "async": True})
    assert result == {"sessionID": result["sessionID"], "async": True}
    assert not any(m.message == "a slow answer" for m in vscode.client.messages)
    gate.set()
    await vscode.editor.wait_for(lambda: any(m.message == "a slow answer" for m in vscode.client.messages))
    with pytest.raises(Exception, match="async: true or false"):
        await command(vscode, "agentls.prompt", {"text": "x", "async": "yes"})
