"""/review through the real server: the agent reviews a git diff, its findings arrive as plain
``textDocument/publishDiagnostics`` (source ``agentls review``), follow their lines, go when the
lines change or when dismissed, and "Fix with agent" lands the fix as a hunk ``/undo all`` takes back.
A stock client (Neovim's capabilities, no agent protocol) runs the review with ``agentls.codeReview``."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config, connect
from tests.lsp.editor import uri

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
REVIEW = (
    "1. [high] calc.py:2 - add() subtracts: it returns a - b.\n"
    "2. [low] calc.py:5 - sub() has no docstring.\n\n"
    "Two problems in the new file."
)


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def git_repo(root: Path) -> None:
    """The project as a git repository whose last commit lacks calc.py (the change to review)."""
    env = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    (root / "calc.py").write_text(CALC)
    subprocess.run(["git", "add", "calc.py"], cwd=root, check=True, env=env)


def review_diagnostics(connected: Connected, path: Path) -> list[lsp.Diagnostic]:
    return [d for d in connected.client.diagnostics.get(uri(path), []) if d.source == "agentls review"]


async def command(connected: Connected, name: str, *arguments: Any) -> Any:
    params = lsp.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(connected.client.workspace_execute_command_async(params), 60)


async def actions_at(connected: Connected, path: Path, line: int) -> list[lsp.CodeAction]:
    at = lsp.Position(line=line, character=0)
    params = lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
        range=lsp.Range(start=at, end=at),
        context=lsp.CodeActionContext(diagnostics=review_diagnostics(connected, path)),
    )
    found = await asyncio.wait_for(connected.client.text_document_code_action_async(params), 30)
    return [a for a in found or [] if isinstance(a, lsp.CodeAction)]


async def test_findings_become_diagnostics_that_follow_go_and_get_fixed(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "calc.py"
    git_repo(plugin.root)
    plugin.editor.open(path, CALC)
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    model.script(Turn.text(REVIEW))
    params = {"sessionID": sid, "command": "review", "arguments": ""}
    result = await plugin.call("agent/session/command", params, timeout=60)

    assert "+    return a - b" in str(model.requests[0].messages)  # the diff went to the model
    assert [(f["file"], f["line"], f["severity"]) for f in result["findings"]] == [
        ("calc.py", 2, "high"),
        ("calc.py", 5, "low"),
    ]
    assert "/changes" in result["text"]  # the note for those who knew /review as the hunk list
    high, low = await plugin.editor.wait_for(lambda: review_diagnostics(plugin, path))
    assert (high.range.start.line, high.severity, high.message) == (
        1,
        lsp.DiagnosticSeverity.Error,
        "add() subtracts: it returns a - b.",
    )
    assert (low.range.start.line, low.severity) == (4, lsp.DiagnosticSeverity.Information)

    titles = [a.title for a in await actions_at(plugin, path, 1)]
    assert titles == ["Fix with agent: add() subtracts: it returns a - b.", "Dismiss review finding"]
    dismiss = next(a for a in await actions_at(plugin, path, 4) if a.title == "Dismiss review finding")
    assert dismiss.command is not None
    await command(plugin, dismiss.command.command, *(dismiss.command.arguments or []))
    await plugin.editor.wait_for(lambda: len(review_diagnostics(plugin, path)) == 1)

    # The user adds a line above: the finding follows its line.
    plugin.editor.type(path, "# calculator\n" + CALC)
    await plugin.editor.wait_for(
        lambda: [d.range.start.line for d in review_diagnostics(plugin, path)] == [2]
    )

    fix = next(a for a in await actions_at(plugin, path, 2) if a.title.startswith("Fix with agent"))
    assert fix.command is not None
    edit = {
        "filePath": str(path),
        "oldString": "    return a - b\n\n\ndef sub",
        "newString": "    return a + b\n\n\ndef sub",
    }
    model.script(Turn.tool_call("edit", edit), Turn.text("Fixed: add() adds now."))
    started = await command(plugin, fix.command.command, *(fix.command.arguments or []))
    assert started == {"sessionID": sid, "async": True}
    # The agent's edit changed the finding's line: its diagnostic is gone.
    await plugin.editor.wait_for(lambda: review_diagnostics(plugin, path) == [], timeout=60)
    assert "    return a + b\n" in plugin.editor.buffers[uri(path)].text
    fix_prompt = str(model.requests[1].messages[-1])
    assert "calc.py" in fix_prompt and "add() subtracts" in fix_prompt  # the fix prompt named the finding
    # The fix's turn ends (the review's turn was the first to go idle).
    await plugin.editor.wait_for(lambda: len(plugin.events("session.idle")) == 2, timeout=60)

    hunks = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert [(h["file"], h["after"]) for h in hunks] == [("calc.py", ["    return a + b\n"])]
    undone = await plugin.call(
        "agent/session/command", {"sessionID": sid, "command": "undo", "arguments": "all"}
    )
    assert undone["text"].startswith("Undid 1 change(s).")
    assert plugin.editor.buffers[uri(path)].text == "# calculator\n" + CALC


@pytest.fixture
async def stock(tmp_path: Path, project: Path, options: Any) -> AsyncIterator[Connected]:
    async for connected in connect(tmp_path, project, "neovim@v0.10.0", options):
        yield connected


async def test_a_stock_client_runs_the_review_and_a_clean_review_clears_it(
    stock: Connected, model: FakeModelServer
) -> None:
    path = stock.root / "calc.py"
    git_repo(stock.root)
    model.script(Turn.text(REVIEW), Turn.text("No findings."))
    first = await command(stock, "agentls.codeReview")
    assert len(first["findings"]) == 2
    assert len(await stock.editor.wait_for(lambda: review_diagnostics(stock, path))) == 2
    assert any("agentls review: 2 finding(s)" in m.message for m in stock.client.messages)

    second = await command(stock, "agentls.codeReview")
    assert second["findings"] == []
    await stock.editor.wait_for(lambda: review_diagnostics(stock, path) == [])


async def test_nothing_to_review_runs_no_turn(plugin: Connected, model: FakeModelServer) -> None:
    git_repo(plugin.root)
    (plugin.root / "calc.py").unlink()
    await asyncio.to_thread(
        subprocess.run, ["git", "rm", "-q", "--cached", "calc.py"], cwd=plugin.root, check=True
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    result = await plugin.call(
        "agent/session/command", {"sessionID": sid, "command": "review", "arguments": ""}
    )
    assert result["text"].startswith("Nothing to review: the uncommitted changes in the working tree has no")
    assert result["findings"] == [] and model.requests == []
