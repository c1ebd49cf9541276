"""The one error hierarchy of the core. Only ``lsp_server`` maps these to JSON-RPC codes."""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the core raises on purpose."""


class NotFoundError(AgentError):
    """A session, message, part or request that does not exist."""


class InvalidInputError(AgentError):
    """Input from outside (a client, a config file, the CLI) that is malformed."""


class ConfigError(InvalidInputError):
    """A config file or layer that is invalid; the message names the file and the key path."""


class BusyError(AgentError):
    """The session is running and the operation needs it idle."""


class StorageError(AgentError):
    """The store could not be read or written, or a stored row failed validation."""


class ToolError(AgentError):
    """A tool failed; the message is written for the model to read and act on."""


class PermissionDeniedError(ToolError):
    """A deny rule matched the call; the message names the rule."""


class PermissionRejectedError(ToolError):
    """The user rejected a permission request (with an optional correction message)."""

    def __init__(self, message: str, *, feedback: str | None = None) -> None:
        super().__init__(message)
        self.feedback = feedback


class QuestionRejectedError(ToolError):
    """The user dismissed a question instead of answering it."""


class AbortedError(AgentError):
    """The turn was aborted by the user."""


class UnqueuedError(AbortedError):
    """A queued prompt left the queue before it ran (removed, its session deleted, the agent closed)."""


class ProviderError(AgentError):
    """A model provider call failed.

    ``kind`` is one of api / auth / context-overflow / aborted / unknown; ``retryable`` tells the
    retry loop whether another attempt may succeed, ``retry_after`` is the server's hint in seconds.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "api",
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


class ContextOverflowError(ProviderError):
    """The request did not fit the model's context window."""

    def __init__(self, message: str, *, status: int | None = 400) -> None:
        super().__init__(message, kind="context-overflow", status=status, retryable=False)


class CompactionFailedError(ContextOverflowError):
    """A compaction failed or could not bring the context under the model's limit; never retried."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=None)
