"""A pytest-lsp client that behaves like an editor: it keeps buffers and applies workspace edits.

Like VS Code, applying an edit changes the buffer (and sends didChange) but does not save it; an
edit whose version no longer matches the buffer is refused. ``before_apply`` lets a test play the
user typing while the edit is on its way.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests import prespawn

REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "lsp_server"]  # cold: a process of its own, for tests about start-up


def serve_command(*args: str) -> list[str]:
    """``python -m lsp_server ARGS`` forked from the pre-imported spawner (tests/prespawn)."""
    return prespawn.command("lsp_server", *args)


# A client that speaks the agent protocol: VS Code's capabilities plus experimental.agent, saving
# every document an agent edit touched (savesEdits) as the plugins do.
PLUGIN = "plugin"


def capabilities(profile: str) -> lsp.ClientCapabilities:
    """``plugin`` (VS Code + experimental.agent) or a pytest-lsp client spec such as ``neovim@v0.10.0``;
    ``plugin+editor:definition,hover`` is a plugin that announces those ``editorQueries``; a ``+content``
    suffix adds LSP 3.18's ``workspace/textDocumentContent`` (dynamically registered)."""
    if profile.endswith("+content"):
        caps = capabilities(profile.removesuffix("+content"))
        assert caps.workspace is not None
        content = lsp.TextDocumentContentClientCapabilities(dynamic_registration=True)
        caps.workspace.text_document_content = content
        return caps
    if profile == PLUGIN or profile.startswith(PLUGIN + "+editor:"):
        caps = client_capabilities("visual-studio-code")
        agent: dict[str, Any] = {"version": 1, "savesEdits": True}
        if "+editor:" in profile:
            agent["editorQueries"] = profile.split(":", 1)[1].split(",")
        caps.experimental = {"agent": agent}
        return caps
    return client_capabilities(profile)


def uri(path: Path) -> str:
    value = from_fs_path(str(path))
    assert value is not None
    return value


@dataclass
class Buffer:
    version: int
    text: str
    open: bool = True


def offset(text: str, position: lsp.Position) -> int:
    """Offset in ``text`` of an LSP position (UTF-16 columns, clamped to the line)."""
    lines = text.splitlines(keepends=True)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    content = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(content):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(content)


@dataclass
class Editor:
    """The editor state behind the client: buffers by URI and what the server asked of it."""

    client: LanguageClient
    buffers: dict[str, Buffer] = field(default_factory=dict)
    edits: list[lsp.ApplyWorkspaceEditParams] = field(default_factory=list)
    before_apply: list[Callable[[Editor], None]] = field(default_factory=list)
    notifications: dict[str, list[Any]] = field(default_factory=dict)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    dialogs: list[lsp.ShowMessageRequestParams] = field(default_factory=list)
    dialog_answers: list[str] = field(default_factory=list)
    saves: bool = False  # save each document an applied edit touched (a savesEdits plugin)

    def open(self, path: Path, text: str) -> None:
        """Open a buffer whose text may differ from the disk (unsaved)."""
        self.buffers[uri(path)] = Buffer(1, text)
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(uri=uri(path), language_id="python", version=1, text=text)
            )
        )

    def type(self, path: Path, text: str) -> None:
        """The user replaces the buffer's text (one didChange)."""
        buffer = self.buffers[uri(path)]
        buffer.version += 1
        buffer.text = text
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri(path), version=buffer.version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def apply(self, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        self.edits.append(params)
        for hook in list(self.before_apply):
            self.before_apply.remove(hook)
            hook(self)
        # `changes` (clients without documentChanges): the same edits, without a version.
        unversioned = [
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=target, version=None),
                edits=list(edits),
            )
            for target, edits in (params.edit.changes or {}).items()
        ]
        for change in [*(params.edit.document_changes or []), *unversioned]:
            if isinstance(change, lsp.CreateFile):
                path = Path(to_fs_path(change.uri) or "")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
                self.buffers[change.uri] = Buffer(0, "", open=False)
            elif isinstance(change, lsp.DeleteFile):
                Path(to_fs_path(change.uri) or "").unlink(missing_ok=True)
                self.buffers.pop(change.uri, None)
            elif isinstance(change, lsp.TextDocumentEdit):
                target = change.text_document
                buffer = self.buffers.get(target.uri)
                if buffer is None:  # a closed file: the editor loads it in the background
                    disk = Path(to_fs_path(target.uri) or "").read_text()
                    buffer = self.buffers[target.uri] = Buffer(0, disk, open=False)
                if target.version is not None and target.version != buffer.version:
                    return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="version mismatch")
                for edit in change.edits:
                    assert isinstance(edit, lsp.TextEdit)
                    start, end = offset(buffer.text, edit.range.start), offset(buffer.text, edit.range.end)
                    buffer.text = buffer.text[:start] + edit.new_text + buffer.text[end:]
                buffer.version += 1
                if self.saves:
                    Path(to_fs_path(target.uri) or "").write_text(buffer.text)
                if buffer.open:
                    self.client.text_document_did_change(
                        lsp.DidChangeTextDocumentParams(
                            text_document=lsp.VersionedTextDocumentIdentifier(
                                uri=target.uri, version=buffer.version
                            ),
                            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=buffer.text)],
                        )
                    )
        return lsp.ApplyWorkspaceEditResult(applied=True)

    def ask(self, params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        """Answer a showMessageRequest with the next queued choice (None: the user closed it)."""
        self.dialogs.append(params)
        self.arrived.set()
        return lsp.MessageActionItem(title=self.dialog_answers.pop(0)) if self.dialog_answers else None

    def record(self, method: str, params: Any) -> None:
        self.notifications.setdefault(method, []).append(params)
        self.arrived.set()

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Wait until ``predicate()`` is truthy, re-checking on every notification."""
        async with asyncio.timeout(timeout):
            while not (value := predicate()):
                self.arrived.clear()
                await self.arrived.wait()
        return value


def make_client(notifications: tuple[str, ...] = ()) -> tuple[LanguageClient, Editor]:
    """A pytest-lsp client with plain-dict custom params and an editor behind it."""
    client = LanguageClient(converter_factory=get_converter)
    converter = client.protocol._converter

    # lsprotocol structures a CodeAction whose ``command`` is an object as a Command (with the
    # object stringified); tell them apart by that field, as the spec does.
    def command_or_action(obj: Any, _: Any) -> lsp.Command | lsp.CodeAction:
        is_action = not isinstance(obj.get("command"), str)
        return converter.structure(obj, lsp.CodeAction if is_action else lsp.Command)  # type: ignore[no-any-return]

    converter.register_structure_hook(Union[lsp.Command, lsp.CodeAction], command_or_action)  # noqa: UP007
    editor = Editor(client)
    # pytest-lsp's own handlers (progress, messages, logs), each also waking ``Editor.wait_for``.
    features: dict[str, Any] = {}
    for method, default in DEFAULT_CLIENT_FEATURES.items():

        def wake(client: LanguageClient, params: Any, default: Any = default) -> Any:
            result = default(client, params)
            editor.arrived.set()
            return result

        features[method] = wake
    register_lsp_features(client, features)

    def ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        return editor.ask(params)

    client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)(ask)

    def apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        return editor.apply(params)

    client.feature(lsp.WORKSPACE_APPLY_EDIT)(apply)
    for method in notifications:

        def record(params: Any, method: str = method) -> None:
            editor.record(method, params)

        client.feature(method)(record)
    return client, editor


def server_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["AGENTLS_DATA_DIR"] = str(data_dir)
    env["AGENTLS_CONFIG_DIR"] = str(data_dir / "config")
    env["HOME"] = str(data_dir / "home")
    env["PYTHONPATH"] = str(REPO)
    for name in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT", "AGENTLS_PERMISSION"):
        env.pop(name, None)
    return env


async def start(
    command: list[str],
    root: Path,
    data_dir: Path,
    profile: str,
    options: dict[str, Any] | None = None,
    notifications: tuple[str, ...] = (),
    prepare: Callable[[Editor], None] | None = None,
) -> tuple[LanguageClient, Editor, lsp.InitializeResult]:
    """Start a server over stdio and initialize it with ``root`` as the workspace folder;
    ``prepare`` readies the editor first (dialog answers for what the server asks at once)."""
    client, editor = make_client(notifications)
    if prepare is not None:
        prepare(editor)
    await client.start_io(*command, env=server_env(data_dir), cwd=str(REPO))
    return client, editor, await initialize(client, root, profile, options)


async def initialize(
    client: LanguageClient, root: Path, profile: str, options: dict[str, Any] | None = None
) -> lsp.InitializeResult:
    """``initialize`` + ``initialized`` with ``root`` as the only workspace folder."""
    if profile == PLUGIN and "untrusted" not in (options or {}):
        options = {**(options or {}), "untrusted": False}  # as both plugins do: they ask about trust
    return await client.initialize_session(
        lsp.InitializeParams(
            capabilities=capabilities(profile),
            root_uri=uri(root),
            workspace_folders=[lsp.WorkspaceFolder(uri=uri(root), name=root.name)],
            initialization_options=options,
            client_info=lsp.ClientInfo(name="pytest-lsp"),
        )
    )
