"""The language server put together: an ``AgentServer`` with the LSP lifecycle's handlers and every
feature module's (lsp_server.server holds the server itself; the feature modules name it, and this
module, which none of them imports, names them all).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from core.trust import distrust
from lsp_server import (
    background,
    code_actions,
    commands,
    context_items,
    dialogs,
    events,
    mcp,
    next_edits,
    plain,
    plain_review,
    providers,
    review,
    review_findings,
    sessions,
    showing,
    worktrees,
)
from lsp_server import control as mode_and_effort
from lsp_server.clients import agent_capability, parse_options
from lsp_server.early_reads import root_of
from lsp_server.editor import announced_queries
from lsp_server.editor_process import EditorProcess
from lsp_server.lifecycle import as_int, watch_process
from lsp_server.server import AgentServer
from lsp_server.workspace import register_document_hooks

log = logging.getLogger(__name__)


def build_server() -> AgentServer:
    """The server with every feature module registered."""
    server = AgentServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        agent = agent_capability(params.capabilities)
        connection = server.connection
        connection.plugin = agent is not None
        connection.saves_edits = bool(agent and agent.get("savesEdits") is True)
        connection.editor_queries = announced_queries(agent)
        connection.name = params.client_info.name if params.client_info else ""
        connection.connected = True
        server.root = server.root or root_of(server.protocol.initialize_json or {})
        options = params.initialization_options
        if isinstance(options, dict):
            if "config" in options:
                server.config_data = options["config"]
            server.host_option = options.get("host")
            connection.trust_decided = "untrusted" in options  # else the server asks (trust_dialog)
            untrusted = options.get("untrusted", False)
            if not isinstance(untrusted, bool):  # the safe reading of a value that is not a boolean
                server.warn_user(f"initializationOptions.untrusted must be true or false, not {untrusted!r}")
            if untrusted is not False:  # before the agent opens: see core/trust.py
                distrust(server.root or Path.cwd())
            connection.initial = parse_options(options, "initializationOptions", server.warn_user)
        # handshake.read_params made anything but a plausible pid None (and logged it).
        pid = as_int(params.process_id)
        if pid is not None and server.watch_parent:
            # Pinned when the frame was read (the early path) or at start (our parent): see editor_process.
            server.editor_process = server.editor_process or EditorProcess()
            editor = server.editor_process.pin(pid)
            if editor is not None:
                server.spawn(watch_process(editor, server.lifetime))
            else:  # e.g. the editor's pid in another PID namespace (a container, flatpak)
                log.info("initialize: processId %d is ignored: no such process is visible here", pid)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        server.apply_settings(params.settings)

    @server.feature(lsp.INITIALIZED)
    def initialized(params: Any) -> None:
        server.start_app()

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(params: Any) -> None:
        await server.close_app()

    findings = review_findings.ReviewFindings(server)
    suggested = next_edits.register(server)

    def edited(uri: str) -> None:
        findings.changed(uri)
        suggested.changed(uri)

    register_document_hooks(
        server,
        lambda: server.lsp_workspace,
        lambda: server.plain.typing.typed(),
        edited,
        suggested.opened,
        server.worktrees.workspaces,
    )
    sessions.register(server)
    worktrees.register(server)
    background.register(server)
    context_items.register(server)
    commands.register(server, findings.publish)
    mcp.register(server)
    review.register(server)
    mode_and_effort.register(server)
    dialogs.register(server)
    showing.register(server)
    events.register(server)
    plain.register(server)
    hunk_actions = plain_review.register(server).actions

    async def more_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return [
            *await hunk_actions(params),
            *await findings.actions(params),
            *await suggested.code_actions(params),
        ]

    code_actions.register(server, more_actions)
    review_findings.register(server, findings)
    providers.register(server)
    return server
