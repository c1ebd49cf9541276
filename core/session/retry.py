"""When and how long to wait before another attempt at a failed model request."""

from __future__ import annotations

import asyncio

from core.errors import AbortedError, ProviderError
from core.record import record

# A server's retry-after is honoured up to this long; beyond it the wait is not worth keeping a turn open.
MAX_RETRY_AFTER = 600.0


@record
class RetryPolicy:
    """Exponential backoff (1, 2, 4 … s, capped), at most ``max_attempts`` retries."""

    initial_delay: float = 1.0
    max_delay: float = 30.0
    max_attempts: int = 10

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), MAX_RETRY_AFTER)
        return float(min(self.initial_delay * 2 ** (attempt - 1), self.max_delay))

    def should_retry(self, attempt: int, error: ProviderError) -> bool:
        """Whether retry number ``attempt`` may happen for this error."""
        return error.retryable and attempt <= self.max_attempts


def retry_message(error: ProviderError) -> str:
    """A short status line for the user, naming the cause."""
    if error.status == 429:
        return f"Rate limited by the provider, retrying: {error}"
    if error.status is not None and error.status >= 500:
        return f"Provider error {error.status}, retrying: {error}"
    return f"Connection problem, retrying: {error}"


async def sleep_or_abort(seconds: float, abort: asyncio.Event) -> None:
    """Sleep, but raise AbortedError as soon as ``abort`` is set."""
    if abort.is_set():
        raise AbortedError("aborted")
    try:
        await asyncio.wait_for(abort.wait(), timeout=seconds)
    except TimeoutError:
        return
    raise AbortedError("aborted")
