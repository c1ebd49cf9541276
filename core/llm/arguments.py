"""A tool call's raw argument text → the JSON object a tool validates, or why it cannot be used.

JSON may escape a lone UTF-16 surrogate (``"\\udcff"``) that no UTF-8 text can hold; such a string
would break every later step that stores or sends the call, so it is refused here, where the model
can still be told which argument to rewrite.
"""

from __future__ import annotations

import json
from typing import Any


def _surrogate_at(value: Any, where: str) -> tuple[str, str] | None:
    """``(location, character)`` of the first lone surrogate inside ``value``, if any."""
    if isinstance(value, str):
        for ch in value:
            if "\ud800" <= ch <= "\udfff":
                return where or "input", ch
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if (found := _surrogate_at(key, path)) or (found := _surrogate_at(item, path)):
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if found := _surrogate_at(item, f"{where}[{i}]"):
                return found
    return None


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Tool arguments as a dict, or the reason they are not a usable JSON object."""
    if not raw.strip():
        return {}, None  # a tool without parameters is often called with no argument text at all
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"the arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, not {type(value).__name__}"
    if found := _surrogate_at(value, ""):
        where, ch = found
        return None, (
            f"{where} is not valid Unicode text: it holds the lone surrogate \\u{ord(ch):04x}, "
            "which cannot be stored or encoded as UTF-8"
        )
    return value, None
