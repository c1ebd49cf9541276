"""``agent/context/resolve`` and the prompt's context parts: thin handlers over ``Agent.resolve_context``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from core.message.prompt_input import ContextInput
from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

Parts = list[p.TextPromptPart | p.FilePromptPart | p.AgentPromptPart | p.ContextPromptPart]


def context_input(index: int, part: p.ContextPromptPart) -> ContextInput:
    """A resolved context part as the core's input (``resolve_parts`` resolved the others)."""
    if part.text is None or part.kind is None:
        raise JsonRpcInvalidParams(message=f"invalid params: parts.{index}: the context item is not resolved")
    return ContextInput(kind=part.kind, label=part.label, text=part.text)


async def resolve_parts(app: Agent, session_id: str, parts: Parts) -> Parts:
    """The parts with each unresolved context ``item`` replaced by its text; an item that cannot be
    resolved refuses the prompt (-32602 naming the part), before anything is stored."""
    pending = [
        (i, part.item) for i, part in enumerate(parts) if isinstance(part, p.ContextPromptPart) and part.item
    ]
    if not pending:
        return parts
    resolved = await app.resolve_context(session_id, [item for _, item in pending])
    out = list(parts)
    for (index, _), item in zip(pending, resolved, strict=True):
        if item.error is not None:
            raise JsonRpcInvalidParams(message=f"invalid params: parts.{index}.item: {item.error}")
        out[index] = p.ContextPromptPart(type="context", kind=item.kind, label=item.label, text=item.text)
    return out


def register(server: AgentServer) -> None:
    """Add ``agent/context/resolve`` to ``server``."""

    @server.request("agent/context/resolve", p.ContextResolve)
    async def resolve(app: Agent, params: p.ContextResolve) -> Any:
        items = await app.resolve_context(params.sessionID, params.items)
        return {"items": items}
