"""Prefixed, sortable identifiers.

Ascending ids sort in creation order: the loop compares ids (``lastUser.id < lastAssistant.id``).
The time part is microseconds since the epoch, bumped so that it never repeats or goes back
within a process; ids minted in different processes sort by their microsecond of creation.
Descending ids invert the time part so that a plain ascending sort lists newest first.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Literal

Prefix = Literal["ses", "msg", "prt", "per", "que", "prj", "tool", "snp", "hnk", "qpr", "pln"]

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_TIME_DIGITS = 14  # hex digits: microseconds since 1970 fit until the year 4253
_TIME_MAX = 16**_TIME_DIGITS - 1
_RANDOM_LEN = 12

_lock = threading.Lock()
_last = 0


def _next_time() -> int:
    global _last
    now = time.time_ns() // 1000
    with _lock:
        _last = max(now, _last + 1)
        return _last


def _random() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(_RANDOM_LEN))


def ascending(prefix: Prefix) -> str:
    """A new id that sorts after every id minted before it."""
    return f"{prefix}_{_next_time():0{_TIME_DIGITS}x}{_random()}"


def descending(prefix: Prefix) -> str:
    """A new id that sorts before every id minted before it (newest-first listings)."""
    return f"{prefix}_{_TIME_MAX - _next_time():0{_TIME_DIGITS}x}{_random()}"


def timestamp_us(identifier: str) -> int:
    """The creation time (µs since the epoch) encoded in an ascending id."""
    _, _, body = identifier.partition("_")
    return int(body[:_TIME_DIGITS], 16)


def check(identifier: str, prefix: Prefix) -> bool:
    """Whether ``identifier`` is well formed and has the given prefix."""
    head, sep, body = identifier.partition("_")
    if head != prefix or not sep or len(body) != _TIME_DIGITS + _RANDOM_LEN:
        return False
    try:
        int(body[:_TIME_DIGITS], 16)
    except ValueError:
        return False
    return all(c in _ALPHABET for c in body[_TIME_DIGITS:])
