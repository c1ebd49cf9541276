"""The ``Agent`` protocol's calls as JSON: which methods travel, and their arguments and results.

The table is read from ``core.api.Agent`` itself (its type hints), so a method the front door
gains travels with no second list to keep. Values go through pydantic's ``TypeAdapter`` of the
hinted type (sessions, messages, records); bytes travel as base64.
"""

from __future__ import annotations

import base64
import binascii
import functools
import inspect
from typing import Any, get_type_hints

from pydantic import TypeAdapter, ValidationError

from core.api import Agent, Dialogs
from core.errors import InvalidInputError

# Methods that never travel as a call: events and closing are the connection's own business.
_LOCAL = frozenset({"subscribe", "listen", "close"})


@functools.cache
def _hints(owner: type, method: str) -> dict[str, Any]:
    return get_type_hints(getattr(owner, method))


def _owner(method: str) -> tuple[type, str]:
    if method.startswith("dialogs."):
        return Dialogs, method.removeprefix("dialogs.")
    return Agent, method


def callable_methods() -> frozenset[str]:
    """The names a front end may call: ``Agent``'s methods and ``dialogs.<name>``."""
    names = {
        name
        for name, _ in inspect.getmembers(Agent, inspect.isfunction)
        if not name.startswith("_") and name not in _LOCAL
    }
    names |= {
        f"dialogs.{name}"
        for name, _ in inspect.getmembers(Dialogs, inspect.isfunction)
        if not name.startswith("_")
    }
    return frozenset(names)


@functools.cache
def _adapter(hint: Any) -> TypeAdapter[Any]:
    return TypeAdapter(hint)


def _is_bytes(hint: Any) -> bool:
    return hint is bytes or (hint == bytes | None)


def _is_list(hint: Any) -> bool:
    return getattr(hint, "__origin__", None) is list


def dump(hint: Any, value: Any) -> Any:
    """``value`` of type ``hint`` as JSON data."""
    if _is_bytes(hint):
        return None if value is None else base64.b64encode(value).decode()
    return _adapter(hint).dump_python(value, mode="json", exclude_none=False)


def load(hint: Any, data: Any) -> Any:
    """JSON data back into a value of type ``hint`` (InvalidInputError when it does not fit)."""
    if _is_bytes(hint):
        if data is None and hint is not bytes:
            return None
        if not isinstance(data, str):
            raise InvalidInputError(f"bytes travel as a base64 string, not {type(data).__name__}")
        try:
            return base64.b64decode(data, validate=True)
        except binascii.Error as exc:
            raise InvalidInputError(f"bytes that are not base64: {exc}") from None
    if data == [] and _is_list(hint):  # most pending lists are empty: no schema to build for them
        return []
    try:
        return _adapter(hint).validate_python(data)
    except ValidationError as exc:
        raise InvalidInputError(f"a value that is not a {hint}: {exc}") from None


def dump_args(method: str, args: dict[str, Any]) -> dict[str, Any]:
    """A call's keyword arguments as JSON data."""
    hints = _hints(*_owner(method))
    return {name: dump(hints[name], value) for name, value in args.items()}


def load_args(method: str, data: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments checked against the method's hints (unknown names refused)."""
    if method not in callable_methods():
        raise InvalidInputError(f"no such method of the agent: {method!r}")
    hints = _hints(*_owner(method))
    unknown = set(data) - set(hints) - {"return"}
    if unknown:
        raise InvalidInputError(f"{method} takes no argument {', '.join(sorted(unknown))}")
    return {name: load(hints[name], value) for name, value in data.items()}


def dump_result(method: str, value: Any) -> Any:
    """A call's result as JSON data."""
    return dump(_hints(*_owner(method))["return"], value)


def load_result(method: str, data: Any) -> Any:
    """A call's result back as the type the method returns."""
    return load(_hints(*_owner(method))["return"], data)
