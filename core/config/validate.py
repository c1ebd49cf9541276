"""Validate merged config data: plain-word errors naming the layer and key path, warnings for unknown keys."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from core.config.merge import KeyPath, Sources, format_path
from core.config.schema import Config, ProviderOptions
from core.errors import ConfigError

_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "string": "a string",
    "list": "a list",
    "dict": "an object",
    "model": "an object",
}

_BOUND_WORDS = {
    "greater_than_equal": "at least",
    "greater_than": "greater than",
    "less_than_equal": "at most",
    "less_than": "less than",
}


def _key_path(error: ErrorDetails, data: Any) -> KeyPath:
    """The error's location in the user's data, without pydantic's union-branch and tag names."""
    loc = error["loc"]
    path: list[str] = []
    node = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, dict) and part in node:
            path.append(str(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path.append(f"[{part}]")
            node = node[part]
        elif last and error["type"] == "missing":
            path.append(str(part))
        # Anything else is a union branch or tag name pydantic adds to the location: not a user key.
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        path.append(str(error.get("ctx", {}).get("discriminator", "type")).strip("'"))
    return tuple(path)


def _describe(error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "missing" or kind == "union_tag_not_found":
        return "is required"
    if kind == "union_tag_invalid":
        return f"must be one of {ctx.get('expected_tags')}"
    if kind == "literal_error":
        return f"must be {ctx.get('expected')}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(ctx.values()), "?")
        return f"must be {_BOUND_WORDS[kind]} {bound}"
    if kind == "too_short":
        return f"must have at least {ctx.get('min_length')} item(s)"
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    for prefix, words in _TYPE_WORDS.items():
        if kind in (f"{prefix}_type", f"{prefix}_parsing"):
            return f"must be {words}"
    return str(error["msg"]).replace("Input should be", "must be")


def _got(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _layer_of(path: KeyPath, sources: Sources) -> str:
    """The layer that set ``path``, a parent of it, or (for a missing key) its siblings."""
    for end in range(len(path), 0, -1):
        if path[:end] in sources:
            return sources[path[:end]]
    # A missing key is reported at a path no layer set: blame the layers that set its parent's keys.
    parent = path[:-1]
    layers = list(dict.fromkeys(layer for key, layer in sources.items() if key[: len(parent)] == parent))
    return " and ".join(layers) if layers else "defaults"


def _format_errors(exc: ValidationError, data: dict[str, Any], sources: Sources) -> str:
    by_path: dict[KeyPath, list[ErrorDetails]] = {}
    for error in exc.errors(include_url=False):
        by_path.setdefault(_key_path(error, data), []).append(error)
    # A union reports each failed branch; errors deeper in the data are the specific ones, so an error at
    # a path that is a prefix of another error's path is a branch mismatch and says nothing new.
    paths = [p for p in by_path if not any(o != p and o[: len(p)] == p for o in by_path)]
    lines: list[str] = []
    for path in paths:
        errors = by_path[path]
        words = list(dict.fromkeys(_describe(e) for e in errors))
        message = words[0] + "".join(", or " + w.removeprefix("must be ") for w in words[1:])
        first = errors[0]
        if first["type"] == "union_tag_invalid":
            message += f" (got {_got(first.get('ctx', {}).get('tag'))})"
        elif first["type"] not in ("missing", "union_tag_not_found"):
            message += f" (got {_got(first['input'])})"
        lines.append(f"{_layer_of(path, sources)}: {format_path(path) or '(top level)'}: {message}")
    return "invalid config:\n  " + "\n  ".join(lines) if len(lines) > 1 else lines[0]


def _unknown_keys(node: Any, path: KeyPath) -> list[KeyPath]:
    found: list[KeyPath] = []
    if isinstance(node, BaseModel):
        # Provider options pass unknown keys to litellm on purpose; "$schema" is for editors.
        if node.model_extra and not isinstance(node, ProviderOptions):
            found += [(*path, key) for key in node.model_extra if not key.startswith("$")]
        for name in type(node).model_fields:
            found += _unknown_keys(getattr(node, name), (*path, name))
    elif isinstance(node, dict):
        for key, value in node.items():
            found += _unknown_keys(value, (*path, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _unknown_keys(value, (*path, f"[{i}]"))
    return found


def _surrogates(node: Any, path: KeyPath) -> list[tuple[KeyPath, str]]:
    """Strings (keys too) holding a lone surrogate, which JSON allows (``"\\ud800"``) but UTF-8
    cannot carry: such a value fails every request, every write of it, much later."""
    found: list[tuple[KeyPath, str]] = []
    if isinstance(node, str):
        if not _encodable(node):
            found.append((path, node))
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and not _encodable(key):
                found.append((path, key))
                continue
            found += _surrogates(value, (*path, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _surrogates(value, (*path, f"[{i}]"))
    return found


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate(data: dict[str, Any], sources: Sources) -> tuple[Config, list[str]]:
    """The validated Config and warnings about unknown keys; ConfigError when the data is invalid."""
    if bad := _surrogates(data, ()):
        lines = [
            f"{_layer_of(path, sources)}: {format_path(path) or '(top level)'}: contains a lone surrogate "
            f"({text.encode('utf-8', 'backslashreplace').decode('ascii', 'backslashreplace')!r} "
            "is not valid Unicode text)"
            for path, text in bad
        ]
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines) if len(lines) > 1 else lines[0])
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, data, sources)) from None
    warnings = [
        f"{_layer_of(path, sources)}: unknown key {format_path(path)} is not used (check the spelling)"
        for path in _unknown_keys(config, ())
    ]
    return config, warnings
