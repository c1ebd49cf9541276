"""The one table from core errors to the JSON-RPC errors an ACP client receives."""

from __future__ import annotations

from acp import RequestError

from core.errors import AgentError, BusyError, InvalidInputError, NotFoundError, ProviderError

RESOURCE_NOT_FOUND = -32002  # ACP's code for an unknown session
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000  # ACP's code: the client offers the authMethods of initialize

# Most specific first: the first matching class decides the code.
ERROR_CODES: tuple[tuple[type[AgentError], int], ...] = (
    (NotFoundError, RESOURCE_NOT_FOUND),
    (InvalidInputError, INVALID_PARAMS),  # ConfigError too
    (BusyError, INVALID_REQUEST),
    (AgentError, INTERNAL_ERROR),
)


def to_request_error(exc: AgentError) -> RequestError:
    """The JSON-RPC error for a core error; ``data.name`` carries the core class name."""
    code = next(code for cls, code in ERROR_CODES if isinstance(exc, cls))
    if isinstance(exc, ProviderError) and exc.kind == "auth":
        code = AUTH_REQUIRED  # no key, or one the provider refused
    data: dict[str, object] = {"name": type(exc).__name__}
    if isinstance(exc, ProviderError):
        data.update(kind=exc.kind, status=exc.status, retryable=exc.retryable)
    return RequestError(code, str(exc) or type(exc).__name__, data)


def invalid_params(message: str) -> RequestError:
    """A request whose parameters are wrong in a way the schema cannot tell."""
    return RequestError(INVALID_PARAMS, message, {"details": message})


def unknown_session(session_id: str) -> RequestError:
    """A session this connection has not opened (or that does not exist)."""
    return RequestError(
        RESOURCE_NOT_FOUND,
        f"unknown session {session_id}: open it with session/new, session/load or session/resume",
        {"sessionId": session_id},
    )
