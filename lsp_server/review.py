"""``agent/review/*``: the agent's changes as hunks to keep or undo (thin handlers over core.api)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from core.message.review import ReviewComment
from lsp_server import protocol as p
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


def _file(app: Agent, params: p.ReviewChoice) -> str | None:
    """The worktree-relative path of ``params.uri`` (None when not given)."""
    if params.hunkIDs is not None and params.uri is not None:
        raise JsonRpcInvalidParams(message="invalid params: give hunkIDs or uri, not both")
    if params.uri is None:
        return None
    path = path_of(params.uri)
    if path is None:
        raise JsonRpcInvalidParams(message="invalid params: uri: not a file:// URI")
    try:
        return path.resolve().relative_to(app.worktree.resolve()).as_posix()
    except ValueError:
        raise JsonRpcInvalidParams(message=f"invalid params: uri: {path} is outside the project") from None


def _hunk(hunk: Any, app: Agent) -> dict[str, Any]:
    # Like every answer (protocol.dump): a field that is None is left out (a hunk's ``agent``).
    wire: dict[str, Any] = hunk.model_dump(mode="json", exclude_none=True)
    wire["uri"] = (app.worktree / hunk.file).as_uri()
    return wire


def _result(result: Any, app: Agent) -> dict[str, Any]:
    return {
        "changed": [_hunk(h, app) for h in result.changed],
        "conflicts": [c.model_dump(mode="json") for c in result.conflicts],
    }


def _comment(item: p.ReviewCommentItem, index: int) -> ReviewComment:
    path = item.path
    if "://" in path:
        found = path_of(path)
        if found is None:
            message = f"invalid params: comments.{index}.path: {path} is not a path or a file:// URI"
            raise JsonRpcInvalidParams(message=message)
        path = str(found)
    return ReviewComment(
        path=path, startLine=item.startLine, endLine=item.endLine, body=item.body, hunkID=item.hunkID
    )


def register(server: AgentServer) -> None:
    """Add the review requests to ``server``."""

    @server.request("agent/review/list", p.SessionRef)
    async def list_(app: Agent, params: p.SessionRef) -> Any:
        return {"hunks": [_hunk(h, app) for h in await app.review(params.sessionID)]}

    @server.request("agent/review/keep", p.ReviewChoice)
    async def keep(app: Agent, params: p.ReviewChoice) -> Any:
        return _result(await app.keep(params.sessionID, params.hunkIDs, _file(app, params)), app)

    @server.request("agent/review/undo", p.ReviewChoice)
    async def undo(app: Agent, params: p.ReviewChoice) -> Any:
        return _result(await app.undo(params.sessionID, params.hunkIDs, _file(app, params)), app)

    @server.request("agent/review/comment", p.ReviewComments)
    async def comment(app: Agent, params: p.ReviewComments) -> Any:
        comments = [_comment(item, i) for i, item in enumerate(params.comments)]
        message = await app.review_comment(params.sessionID, comments, send=params.send)
        return {"sessionID": message.info.sessionID, "messageID": message.info.id}
