"""`agentls demo`: a scripted agent turn driven through `agentls serve`, the way an editor drives it.

It starts the server as a subprocess and acts as its LSP client: it opens a buffer holding unsaved
text, prompts, answers the permission dialog, applies the workspace edit the server sends to its
buffer, and prints the events as they stream. Only the model is scripted (a fake server on
127.0.0.1); the server, the loop, the tools and the protocol are the real ones.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from cli.demo_cmd import demo as in_process_demo
from cli.demo_cmd import demo_config
from cli.render import Transcript
from core.events import Event
from demo import scenario
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

UNSAVED = "# (unsaved in the editor) calculator helpers\n"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls demo`, replacing the in-process version of the core CLI."""
    parser = sub.add_parser("demo", help="run a scripted agent turn through the LSP server, offline")
    parser.add_argument(
        "--in-process", action="store_true", help="run the turn straight through the loop, without the server"
    )
    parser.set_defaults(func=demo)


class DemoEditor:
    """The editor side: one open buffer, edits applied to it, events printed, dialogs answered."""

    def __init__(self, client: LanguageClient, path: Path, transcript: Transcript) -> None:
        self.client = client
        self.uri = from_fs_path(str(path)) or path.as_uri()
        self.text = UNSAVED + path.read_text()
        self.version = 1
        self.transcript = transcript
        self.replies: set[asyncio.Task[Any]] = set()

    def apply(self, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        for change in params.edit.document_changes or []:
            if isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri == self.uri:
                if change.text_document.version not in (None, self.version):
                    return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="version mismatch")
                for edit in change.edits:
                    assert isinstance(edit, lsp.TextEdit)
                    self.text = _replace(self.text, edit)
                self.version += 1
                self.client.text_document_did_change(
                    lsp.DidChangeTextDocumentParams(
                        text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=self.text)],
                    )
                )
        sys.stdout.write(f"  (editor applied the edit as one undo step: {params.label})\n")
        return lsp.ApplyWorkspaceEditResult(applied=True)

    def on_event(self, params: Any) -> None:
        event = Event.from_wire(params["type"], params["properties"])
        self.transcript.handle(event)
        if params["type"] == "permission.asked":
            sys.stdout.write("  (demo answers the dialog: allow once)\n")
            reply = {"requestID": params["properties"]["request"]["id"], "reply": "once"}
            task = asyncio.ensure_future(
                self.client.protocol.send_request_async("agent/permission/reply", reply)
            )
            self.replies.add(task)
            task.add_done_callback(self.replies.discard)


def _replace(text: str, edit: lsp.TextEdit) -> str:
    lines = text.splitlines(keepends=True)

    def offset(pos: lsp.Position) -> int:
        if pos.line >= len(lines):
            return len(text)
        return sum(len(line) for line in lines[: pos.line]) + pos.character

    return text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]


async def demo(args: argparse.Namespace) -> int:
    """Run the scripted turn through the server and report what the editor and the disk hold."""
    if args.in_process:
        return await in_process_demo(args)
    out = sys.stdout
    out.write("agentls demo — a SCRIPTED model (no network) fixing a bug, through the LSP server\n\n")
    with tempfile.TemporaryDirectory(prefix="agentls-demo-") as tmp:
        root = scenario.make_project(Path(tmp) / "project")
        async with FakeModelServer() as main, FakeModelServer() as titles:
            main.script(*scenario.turns(sys.executable))
            titles.script(Turn.text("Fix the add bug in calc.py"))
            env = {**os.environ, "AGENTLS_DATA_DIR": f"{tmp}/data", "AGENTLS_CONFIG_DIR": f"{tmp}/config"}
            client = LanguageClient("agentls-demo", "1", converter_factory=get_converter)
            transcript = Transcript(None, out)
            editor = DemoEditor(client, root / "calc.py", transcript)

            # pygls registers plain functions only (it tags them), not bound methods.
            def apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
                return editor.apply(params)

            def on_event(params: Any) -> None:
                editor.on_event(params)

            client.feature(lsp.WORKSPACE_APPLY_EDIT)(apply)
            client.feature("agent/event")(on_event)
            await client.start_io(sys.executable, "-m", "lsp_server", env=env)
            try:
                return await _session(client, editor, root, demo_config(main, titles), out)
            finally:
                if not client.stopped:
                    await client.shutdown_async(None)
                    client.exit(None)
                await client.stop()  # type: ignore[no-untyped-call]


async def _session(
    client: LanguageClient, editor: DemoEditor, root: Path, config: dict[str, Any], out: Any
) -> int:
    caps = lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=lsp.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[lsp.ResourceOperationKind.Create, lsp.ResourceOperationKind.Delete],
            ),
        ),
        experimental={"agent": {"version": 1}},
    )
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=caps,
            root_uri=from_fs_path(str(root)),
            initialization_options={"config": config},
        )
    )
    client.initialized(lsp.InitializedParams())
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=editor.uri, language_id="python", version=1, text=editor.text
            )
        )
    )
    out.write(f"project: {root}\nopened calc.py in the editor with an unsaved first line\n")
    out.write(f"prompt:  {scenario.PROMPT}\n\n")
    protocol = client.protocol
    session = await protocol.send_request_async("agent/session/create", {})
    editor.transcript = Transcript(session["id"], out)
    prompt = {"sessionID": session["id"], "parts": [{"type": "text", "text": scenario.PROMPT}]}
    answer = await asyncio.wait_for(protocol.send_request_async("agent/session/prompt", prompt), 120)
    editor.transcript.finish()
    disk = (root / "calc.py").read_text()
    out.write(f"\neditor buffer now: {editor.text.splitlines()[2].strip()} (version {editor.version})\n")
    out.write(f"disk now:          {disk.splitlines()[2].strip()}\n")
    ok = "return a + b" in editor.text and disk == editor.text and answer["info"].get("error") is None
    return 0 if ok else 1
