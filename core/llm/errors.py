"""Provider failures → ``ProviderError`` / ``ContextOverflowError``, decided in one table.

The table answers two questions for the retry loop: may another attempt succeed, and how long
does the server ask us to wait. HTTP answers, transport errors (core.llm.http's, and httpx's under
litellm) and litellm exceptions all
end up in ``from_status`` so they are classified alike.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from core.errors import ContextOverflowError, ProviderError
from core.llm import http

# (status matches, kind, retryable) — first match wins.
STATUS_TABLE: list[tuple[Callable[[int], bool], str, bool]] = [
    (lambda s: s in (401, 403), "auth", False),
    (lambda s: s in (408, 409, 429) or s >= 500, "api", True),  # 529: Anthropic overloaded
    (lambda s: True, "api", False),
]

_OVERFLOW = re.compile(
    r"context_length_exceeded|prompt is too long|maximum context length|context window|"
    r"exceeds? the (?:context|max(?:imum)? (?:input|prompt))|too many (?:input )?tokens",
    re.IGNORECASE,
)

# In-stream error types (Anthropic's, then OpenAI's), as the HTTP status of the same failure.
ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
    "server_error": 500,
    "rate_limit_exceeded": 429,
}


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """The server's wait hint in seconds: ``retry-after-ms``, ``retry-after`` seconds or HTTP date."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    if (ms := lower.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def is_context_overflow(message: str) -> bool:
    """Whether an error message says the prompt does not fit the context window."""
    return bool(_OVERFLOW.search(message))


def error_message(body: str) -> str:
    """The human message inside an OpenAI or Anthropic error body (the body itself otherwise)."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return body.strip()[:500] or "(empty body)"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        parts = [str(err.get("message") or "")]
        code = err.get("code") or err.get("type")
        if code and str(code) not in parts[0]:
            parts.append(f"({code})")
        return " ".join(p for p in parts if p) or body[:500]
    if isinstance(err, str):
        return err
    return body.strip()[:500]


def from_status(
    status: int, message: str, headers: Mapping[str, str] | None = None, *, provider: str = "provider"
) -> ProviderError:
    """Classify an HTTP failure with its message and headers."""
    text = f"{provider} returned HTTP {status}: {message}"
    if status in (400, 413, 422) and is_context_overflow(message):
        return ContextOverflowError(text, status=status)
    for matches, kind, retryable in STATUS_TABLE:
        if matches(status):
            return ProviderError(
                text, kind=kind, status=status, retryable=retryable, retry_after=retry_after(headers)
            )
    raise AssertionError("the status table ends with a catch-all")


def from_transport(exc: Exception, *, provider: str = "provider") -> ProviderError:
    """Classify a transport failure: timeouts, refused and dropped connections are worth retrying.

    ``core.llm.http``'s errors, and httpx's (litellm's requests) by class name: httpx is not
    imported for this."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if isinstance(exc, http.CertificateError) or "CERTIFICATE_VERIFY_FAILED" in str(exc):
        # Another attempt meets the same certificate: say how to trust it instead of retrying.
        return ProviderError(
            f"{provider}: the server's TLS certificate is not trusted: {exc}. If your network (a "
            "company proxy) or a private CA signs it, set SSL_CERT_FILE to a PEM file holding that "
            "CA's certificate (or SSL_CERT_DIR to a folder of them) and try again",
            kind="api",
            retryable=False,
        )
    if isinstance(exc, http.HTTPTimeout) or "TimeoutException" in names:
        what = "timed out"
    elif isinstance(exc, http.ConnectError) or "ConnectError" in names:
        what = "could not connect"
    elif isinstance(exc, http.ProtocolError) or names & {"RemoteProtocolError", "ReadError", "WriteError"}:
        what = "dropped the connection"
    elif isinstance(exc, http.InvalidRequestError):
        return ProviderError(f"{provider}: cannot send the request: {exc}", kind="api", retryable=False)
    elif names & {"UnsupportedProtocol", "InvalidURL"}:
        return ProviderError(f"{provider}: bad api_base URL: {exc}", kind="api", retryable=False)
    elif isinstance(exc, http.HTTPError) or "TransportError" in names:
        what = "failed in transport"
    else:
        return ProviderError(f"{provider} request failed: {exc}", kind="unknown", retryable=False)
    return ProviderError(f"{provider} {what}: {exc or type(exc).__name__}", kind="api", retryable=True)


def from_stream_error(error: Any, *, provider: str = "provider") -> ProviderError:
    """Classify an error event that arrived inside a stream which had already answered 200."""
    if not isinstance(error, dict):
        return from_status(500, str(error), provider=provider)
    code, kind = error.get("code"), error.get("type")
    if isinstance(code, int) or (isinstance(code, str) and code.isdigit()):
        status = int(code)
    else:
        status = ERROR_TYPE_STATUS.get(str(kind or code), 500)
    message = str(error.get("message") or kind or error)
    return from_status(status, message, provider=provider)


def dropped(provider: str = "provider") -> ProviderError:
    """A stream that ended without saying it finished."""
    return ProviderError(
        f"{provider} closed the stream before the answer finished (connection dropped)",
        kind="api",
        retryable=True,
    )


def malformed(line: str, provider: str = "provider") -> ProviderError:
    """A stream event whose data is not the JSON the protocol promises."""
    return ProviderError(
        f"{provider} sent a malformed stream event (not valid JSON): {line[:200]!r}",
        kind="api",
        retryable=False,
    )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for nxt in (getattr(current, "original_exception", None), current.__cause__, current.__context__):
            if isinstance(nxt, BaseException):
                stack.append(nxt)


def from_litellm(exc: Exception, *, provider: str = "provider") -> ProviderError:
    """Classify a litellm exception by its class names and status (litellm itself is not imported)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    message = str(exc)
    if names & {"MidStreamFallbackError", "APIConnectionError"}:
        # litellm wraps a failure inside the stream as a 5xx; the root cause says what happened.
        for cause in _causes(exc):
            if isinstance(cause, json.JSONDecodeError):
                return malformed(cause.doc, provider)
            if isinstance(cause, Exception) and "TransportError" in {c.__name__ for c in type(cause).__mro__}:
                return from_transport(cause, provider=provider)
    if "ContextWindowExceededError" in names:
        return ContextOverflowError(f"{provider}: {message}", status=getattr(exc, "status_code", 400))
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None and (response := getattr(exc, "response", None)) is not None:
        headers = getattr(response, "headers", None)
    header_map: Mapping[str, str] | None = (
        dict(headers) if isinstance(headers, Mapping) else None  # httpx.Headers is one
    )
    if names & {"Timeout", "APITimeoutError"}:
        return ProviderError(f"{provider} timed out: {message}", kind="api", status=408, retryable=True)
    if "APIConnectionError" in names:
        return ProviderError(f"{provider} connection failed: {message}", kind="api", retryable=True)
    status = getattr(exc, "status_code", None)
    if names & {"AuthenticationError", "PermissionDeniedError"} and status not in (401, 403):
        status = 401
    if status == 500 and "overloaded_error" in message:
        status = 529  # litellm reports Anthropic's 529 as a 500; keep the provider's own status
    if isinstance(status, int):
        return from_status(status, message, header_map, provider=provider)
    return ProviderError(f"{provider}: {message}", kind="unknown", retryable=False)
