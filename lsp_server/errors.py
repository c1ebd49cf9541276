"""The one table from core errors to JSON-RPC error codes, and the wrapper that applies it.

Codes outside the JSON-RPC and LSP reserved ranges (-32010 …) let a client tell "no such session"
from "the session is busy" without parsing messages; ``data.name`` carries the core class name.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from pygls.exceptions import JsonRpcException

from core.errors import (
    AbortedError,
    AgentError,
    BusyError,
    InvalidInputError,
    NotFoundError,
    ProviderError,
    StorageError,
    ToolError,
    UnqueuedError,
)

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800
AGENT_ERROR = -32000
NOT_FOUND = -32010
BUSY = -32011
PROVIDER_ERROR = -32012
STORAGE_ERROR = -32013
TOOL_ERROR = -32014
# -32015 is taken: over --tcp, a missing or wrong token (lsp_server/tcp.py, answered before pygls loads)
UNQUEUED = -32016

# Most specific first: the first matching class decides the code.
ERROR_CODES: tuple[tuple[type[AgentError], int], ...] = (
    (NotFoundError, NOT_FOUND),
    (InvalidInputError, INVALID_PARAMS),  # ConfigError too
    (BusyError, BUSY),
    (UnqueuedError, UNQUEUED),  # not -32800: clients drop answers with that code unseen (Neovim)
    (AbortedError, REQUEST_CANCELLED),
    (ProviderError, PROVIDER_ERROR),
    (StorageError, STORAGE_ERROR),
    (ToolError, TOOL_ERROR),
    (AgentError, AGENT_ERROR),
)


def to_jsonrpc(exc: AgentError) -> JsonRpcException:
    """The JSON-RPC error a client receives for a core error."""
    code = next(code for cls, code in ERROR_CODES if isinstance(exc, cls))
    data: dict[str, object] = {"name": type(exc).__name__}
    if isinstance(exc, ProviderError):
        data.update(kind=exc.kind, status=exc.status, retryable=exc.retryable)
    return JsonRpcException(message=str(exc) or type(exc).__name__, code=code, data=data)


P = ParamSpec("P")
R = TypeVar("R")


def jsonrpc_errors(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Wrap a request handler so that core errors reach the client with their code."""

    @functools.wraps(handler)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except AgentError as exc:
            log.info("%s failed: %s: %s", handler.__name__, type(exc).__name__, exc)
            raise to_jsonrpc(exc) from exc

    return wrapper
