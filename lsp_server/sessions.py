"""``agent/session/*`` and ``agent/config``: thin handlers over the agent's front door (``core.api``)."""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from core.api import unrecorded_warning
from core.message.prompt_input import AgentInput, ContextInput, FileInput, TextInput
from core.message.search import SearchHit
from lsp_server import protocol as p
from lsp_server.context_items import context_input, resolve_parts
from lsp_server.session_reads import READS
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


def prompt_inputs(
    parts: list[p.TextPromptPart | p.FilePromptPart | p.AgentPromptPart | p.ContextPromptPart],
) -> list[TextInput | FileInput | AgentInput | ContextInput]:
    """The core's prompt input: file URIs become paths (only file:// URIs can be read)."""
    out: list[TextInput | FileInput | AgentInput | ContextInput] = []
    for index, part in enumerate(parts):
        if isinstance(part, p.ContextPromptPart):
            out.append(context_input(index, part))
        elif isinstance(part, p.TextPromptPart):
            out.append(TextInput(type="text", text=part.text))
        elif isinstance(part, p.AgentPromptPart):
            out.append(AgentInput(type="agent", name=part.name))
        elif part.data is not None:
            # An image the client sends itself (pasted, dropped): the name only labels it.
            name = part.name or f"image{mimetypes.guess_extension(part.mime or '') or ''}"
            out.append(FileInput(type="file", path=name, mime=part.mime, data=part.data))
        else:
            path = path_of(part.uri or "")
            if path is None:
                raise JsonRpcInvalidParams(message=f"invalid params: parts.{index}.uri: not a file:// URI")
            out.append(FileInput(type="file", path=str(path), mime=part.mime, range=part.range))
    return out


def search_hit(hit: SearchHit) -> dict[str, Any]:
    """A search hit on the wire: highlights in UTF-16 code units, as LSP counts characters."""
    return {
        "session": hit.session,
        "snippet": hit.snippet,
        "highlights": [[_utf16(hit.snippet[:a]), _utf16(hit.snippet[:b])] for a, b in hit.highlights],
        "messageID": hit.message_id,
        "partID": hit.part_id,
    }


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def register(server: AgentServer) -> None:
    """Add the session requests to ``server``."""

    # The reads a chat opens with: answered from the store while the agent still loads (and,
    # before pygls is even loaded, by the early phase from the same table).
    for method, (model, read) in READS.items():
        server.read_request(method, model)(read)

    @server.request("agent/session/create", p.SessionCreate)
    async def create(app: Agent, params: p.SessionCreate) -> Any:
        if params.worktree is not None:  # a new worktree, and the session in its agent
            root = server.root or Path.cwd()
            return await server.worktrees.create_session(
                root, params.worktree, params.title, params.agent, params.model
            )
        return await app.create_session(params.title, params.agent, params.model)

    @server.request("agent/session/search", p.SessionSearch)
    async def search(app: Agent, params: p.SessionSearch) -> Any:
        hits = await app.search_sessions(params.query, params.since, params.until, params.agent, params.limit)
        return {"hits": [search_hit(h) for h in hits]}

    @server.request("agent/session/export", p.SessionExport)
    async def export(app: Agent, params: p.SessionExport) -> Any:
        return {"format": params.format, "text": await app.export_markdown(params.sessionID)}

    @server.request("agent/session/update", p.SessionUpdate)
    async def update(app: Agent, params: p.SessionUpdate) -> Any:
        return await app.rename_session(params.sessionID, params.title)

    @server.request("agent/session/delete", p.SessionRef)
    async def delete(app: Agent, params: p.SessionRef) -> Any:
        await app.delete_session(params.sessionID)
        return None

    @server.request("agent/session/fork", p.SessionFork)
    async def fork(app: Agent, params: p.SessionFork) -> Any:
        return await app.fork_session(params.sessionID, params.messageID)

    @server.request("agent/session/prompt", p.SessionPrompt)
    async def prompt(app: Agent, params: p.SessionPrompt) -> Any:
        parts = prompt_inputs(await resolve_parts(app, params.sessionID, params.parts))
        return await app.prompt(params.sessionID, parts, params.agent, params.model, mode=params.mode)

    @server.request("agent/session/queue/list", p.SessionRef)
    async def queue_list(app: Agent, params: p.SessionRef) -> Any:
        await app.get_session(params.sessionID)
        return {"items": app.queued(params.sessionID)}

    @server.request("agent/session/queue/update", p.QueueUpdate)
    async def queue_update(app: Agent, params: p.QueueUpdate) -> Any:
        parts = prompt_inputs(await resolve_parts(app, params.sessionID, params.parts))
        return app.update_queued(params.sessionID, params.queueID, parts)

    @server.request("agent/session/queue/remove", p.QueueRef)
    async def queue_remove(app: Agent, params: p.QueueRef) -> Any:
        app.remove_queued(params.sessionID, params.queueID)
        return None

    @server.request("agent/session/abort", p.SessionRef)
    async def abort(app: Agent, params: p.SessionRef) -> Any:
        await app.get_session(params.sessionID)
        await app.abort(params.sessionID)
        return None

    @server.request("agent/session/compact", p.SessionRef)
    async def compact(app: Agent, params: p.SessionRef) -> Any:
        return await app.compact(params.sessionID)

    @server.request("agent/session/revert", p.SessionRevertParams)
    async def revert(app: Agent, params: p.SessionRevertParams) -> Any:
        return await app.revert(params.sessionID, params.messageID, params.partID)

    @server.request("agent/session/unrevert", p.SessionRef)
    async def unrevert(app: Agent, params: p.SessionRef) -> Any:
        return await app.unrevert(params.sessionID)

    @server.request("agent/session/diff", p.SessionDiffParams)
    async def diff(app: Agent, params: p.SessionDiffParams) -> Any:
        files = await app.diff(params.sessionID, params.messageID)
        missed = await app.unrecorded_steps(params.sessionID, params.messageID)
        return {
            "files": [
                {"file": f.file, "patch": f.patch or "", "additions": f.additions, "deletions": f.deletions}
                for f in files
            ],
            "unrecorded": missed,
            "warnings": [unrecorded_warning(missed)] if missed else [],
        }

    @server.request("agent/config", p.NoParams)
    async def config(app: Agent, params: p.NoParams) -> Any:
        return app.config_info().to_wire()
