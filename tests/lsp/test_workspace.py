"""LspWorkspace against a client that applies edits like an editor (real stdio, real buffers)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.editor import PLUGIN, REPO, Editor, start, uri

FIXTURE_SERVER = [sys.executable, str(REPO / "tests" / "fixtures" / "lsp" / "workspace_server.py")]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def _started(
    tmp_path: Path, project: Path, profile: str
) -> AsyncIterator[tuple[LanguageClient, Editor]]:
    client, editor, _ = await start(FIXTURE_SERVER, project, tmp_path / "data", profile)
    yield client, editor
    await client.shutdown_session()
    await client.stop()


@pytest.fixture
async def vscode(tmp_path: Path, project: Path) -> AsyncIterator[tuple[LanguageClient, Editor]]:
    async for pair in _started(tmp_path, project, "visual-studio-code"):
        yield pair


@pytest.fixture
async def neovim(tmp_path: Path, project: Path) -> AsyncIterator[tuple[LanguageClient, Editor]]:
    async for pair in _started(tmp_path, project, "neovim@v0.10.0"):
        yield pair


async def call(client: LanguageClient, method: str, **params: Any) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async(method, params), 20)


async def test_read_sees_the_unsaved_buffer(vscode: tuple[LanguageClient, Editor], project: Path) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("on disk\n")
    editor.open(path, "unsaved\n")
    assert await call(client, "test/read", path=str(path)) == {"text": "unsaved\n", "open": True}
    other = project / "b.py"
    other.write_text("only on disk\n")
    assert await call(client, "test/read", path=str(other)) == {"text": "only on disk\n", "open": False}


async def test_write_to_a_modified_buffer_is_a_labelled_versioned_edit_and_leaves_the_disk_alone(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("old\n")
    editor.open(path, "unsaved\nline two\n")
    result = await call(client, "test/write", path=str(path), text="agent\n", label="edit a.py")
    # The disk keeps the user's last save: a write behind a modified buffer is what editors prompt about.
    assert result == {"disk": "old\n"}
    assert editor.buffers[uri(path)].text == "agent\n"
    (edit,) = editor.edits
    assert edit.label == "edit a.py"
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, lsp.TextDocumentEdit)
    assert change.text_document.version == 1
    # The server's view of the buffer followed the edit.
    assert (await call(client, "test/read", path=str(path)))["text"] == "agent\n"


async def test_refused_edit_is_rebased_once_on_the_users_typing(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    editor.open(path, "one\ntwo\nthree\n")
    # The user edits line three while the agent's edit of line one is on its way.
    editor.before_apply.append(lambda ed: ed.type(path, "one\ntwo\nTHREE\n"))
    result = await call(client, "test/write", path=str(path), text="ONE\ntwo\nthree\n")
    assert result == {"disk": None}  # a buffer never saved stays unsaved
    assert editor.buffers[uri(path)].text == "ONE\ntwo\nTHREE\n"
    assert len(editor.edits) == 2
    versions = [c.text_document.version for e in editor.edits for c in e.edit.document_changes or []]
    assert versions == [1, 2]


async def test_refused_edit_that_conflicts_is_reported_to_the_model(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("zero\n")
    editor.open(path, "one\n")
    editor.before_apply.append(lambda ed: ed.type(path, "uno\n"))
    result = await call(client, "test/write", path=str(path), text="ONE\n")
    assert "changed in the editor" in result["error"]
    assert path.read_text() == "zero\n"
    assert editor.buffers[uri(path)].text == "uno\n"


async def test_refused_twice_is_reported(vscode: tuple[LanguageClient, Editor], project: Path) -> None:
    client, editor = vscode
    path = project / "a.py"
    editor.open(path, "one\ntwo\nthree\n")

    def first(ed: Editor) -> None:
        ed.type(path, "one\ntwo\nTHREE\n")
        # ...and types again before the second attempt lands.
        ed.before_apply.append(lambda e: e.type(path, "one\ntwo\nTHREE!\n"))

    editor.before_apply.append(first)
    result = await call(client, "test/write", path=str(path), text="ONE\ntwo\nthree\n")
    assert "changed in the editor" in result["error"]
    assert len(editor.edits) == 2


async def test_new_and_closed_files_go_straight_to_disk(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    new = project / "pkg" / "new.py"
    assert await call(client, "test/write", path=str(new), text="x = 1\n") == {"disk": "x = 1\n"}
    closed = project / "closed.py"
    closed.write_text("before\n")
    assert await call(client, "test/write", path=str(closed), text="after\n") == {"disk": "after\n"}
    assert await call(client, "test/delete", path=str(closed)) == {"exists": False}
    # No buffer the user never opened is left modified (or created) in the editor.
    assert editor.edits == []


async def test_unmodified_buffer_gets_the_disk_and_the_editors_reload(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("one\ntwo\n")
    editor.open(path, "one\ntwo\n")
    assert await call(client, "test/write", path=str(path), text="ONE\ntwo\n") == {"disk": "ONE\ntwo\n"}
    assert editor.edits == []  # nothing the editor would keep as a modified buffer
    # Before the editor reloads, the server already reads the new text: the next edit builds on it.
    assert (await call(client, "test/read", path=str(path)))["text"] == "ONE\ntwo\n"
    assert await call(client, "test/write", path=str(path), text="ONE\nTWO\n") == {"disk": "ONE\nTWO\n"}
    editor.type(path, "ONE\nTWO\n")  # the editor's reload (autoread, auto-revert) reports the text
    assert (await call(client, "test/read", path=str(path)))["text"] == "ONE\nTWO\n"


async def test_two_edits_of_a_modified_buffer_before_any_didchange(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("disk\n")
    editor.open(path, "a\nb\nc\n")
    editor.client.text_document_did_change = lambda params: None  # type: ignore[method-assign]
    assert await call(client, "test/write", path=str(path), text="A\nb\nc\n") == {"disk": "disk\n"}
    assert await call(client, "test/write", path=str(path), text="A\nb\nC\n") == {"disk": "disk\n"}
    assert editor.buffers[uri(path)].text == "A\nb\nC\n"
    first, second = (e.edit.document_changes or [] for e in editor.edits)
    assert [c.text_document.version for c in first] == [1]  # type: ignore[union-attr]
    # The editor's version after our edit is unknown until it reports: the second edit is unversioned.
    assert [c.text_document.version for c in second] == [None]  # type: ignore[union-attr]
    # Each edit is only the changed region, so typing elsewhere in the buffer survives it.
    (edit,) = second[0].edits  # type: ignore[union-attr]
    assert edit.new_text == "C" and edit.range.start.line == 2  # type: ignore[union-attr]


async def test_an_error_reply_to_apply_edit_is_a_refusal(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = vscode
    path = project / "a.py"
    path.write_text("disk\n")
    editor.open(path, "buffer\n")

    def cancelled_by_the_user(_: Editor) -> None:
        raise RuntimeError("User cancelled server edit")

    editor.before_apply.append(cancelled_by_the_user)
    result = await call(client, "test/write", path=str(path), text="agent\n")
    assert "the editor refused the edit of a.py" in result["error"]
    assert "User cancelled server edit" in result["error"]
    assert path.read_text() == "disk\n" and editor.buffers[uri(path)].text == "buffer\n"


async def test_client_without_document_changes_gets_plain_changes(
    neovim: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, editor = neovim
    path = project / "a.py"
    path.write_text("old\n")
    editor.open(path, "unsaved\n")
    assert (await call(client, "test/read", path=str(path)))["text"] == "unsaved\n"
    assert await call(client, "test/write", path=str(path), text="agent\n") == {"disk": "old\n"}
    (edit,) = editor.edits
    assert edit.edit.document_changes is None and list(edit.edit.changes or {}) == [uri(path)]
    assert editor.buffers[uri(path)].text == "agent\n"
    assert await call(client, "test/delete", path=str(path)) == {"exists": False}


async def test_a_client_that_saves_edits_gets_no_disk_write_behind_it(tmp_path: Path, project: Path) -> None:
    async for client, editor in _started(tmp_path, project, PLUGIN):
        path = project / "a.py"
        path.write_text("one\n")
        editor.open(path, "one\n")
        # This editor does not save: if the server wrote the disk itself, it would hold the edit.
        assert await call(client, "test/write", path=str(path), text="ONE\n") == {"disk": "one\n"}
        assert editor.buffers[uri(path)].text == "ONE\n"
        assert (await call(client, "test/read", path=str(path)))["text"] == "ONE\n"


def _diagnostic(line: int, message: str, severity: int | None) -> dict[str, Any]:
    position = {"line": line, "character": 4}
    diagnostic: dict[str, Any] = {"range": {"start": position, "end": position}, "message": message}
    if severity is not None:
        diagnostic["severity"] = severity
    return diagnostic


async def test_diagnostics_after_an_edit_are_the_fresh_errors(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, _ = vscode
    path = project / "a.py"
    path.write_text("x\n")
    report = {"uri": uri(path), "diagnostics": [_diagnostic(0, "stale", 1)]}
    client.protocol.notify("agent/diagnostics", report)
    await call(client, "test/write", path=str(path), text="y = (\n")
    # A report from before the edit is not an answer: nothing fresh arrives → no diagnostics.
    assert await call(client, "test/diagnostics", path=str(path), timeout=0.2) == {"errors": []}

    waiting = asyncio.ensure_future(call(client, "test/diagnostics", path=str(path), timeout=10))
    fresh = [
        _diagnostic(0, "'(' was never closed", 1),
        _diagnostic(1, "unused", 2),
        _diagnostic(2, "bad", None),
    ]
    client.protocol.notify("agent/diagnostics", {"uri": uri(path), "diagnostics": fresh})
    assert await waiting == {"errors": ["1:5 '(' was never closed", "3:5 bad"]}


async def test_malformed_diagnostics_are_ignored(
    vscode: tuple[LanguageClient, Editor], project: Path
) -> None:
    client, _ = vscode
    path = project / "a.py"
    client.protocol.notify("agent/diagnostics", {"uri": uri(path), "diagnostics": [{"message": 3}]})
    await call(client, "test/write", path=str(path), text="z\n")
    # The server survived and did not take the malformed report as the client reporting at all.
    assert await call(client, "test/diagnostics", path=str(path), timeout=5) == {"errors": []}
