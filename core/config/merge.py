"""Deep merge of config layers that remembers which layer set each value.

Mappings merge key by key (the later layer wins); lists are replaced, except the top-level
``instructions``, which concatenates without duplicates. Permission maps (``permission`` and
``agent.<name>.permission``) are ordered rule lists where the last match wins, so a key a later layer sets
again moves to the end: the later layer's rule must keep precedence over the earlier ones.
"""

from __future__ import annotations

import copy
from typing import Any

KeyPath = tuple[str, ...]
# Key path → name of the layer that set the value there (leaves only).
Sources = dict[KeyPath, str]

ACTIONS = ("allow", "ask", "deny")


def format_path(path: KeyPath) -> str:
    """``("provider", "local", "models")`` → ``provider.local.models``; list indexes as ``[i]``."""
    out = ""
    for part in path:
        if part.startswith("[") or not out:
            out += part
        else:
            out += "." + part
    return out


def _forget(sources: Sources, path: KeyPath) -> None:
    for key in [k for k in sources if k[: len(path)] == path]:
        del sources[key]


def _record(sources: Sources, path: KeyPath, value: Any, layer: str) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _record(sources, (*path, str(key)), item, layer)
    else:
        sources[path] = layer


def _replace(
    target: dict[str, Any], key: str, value: Any, path: KeyPath, layer: str, sources: Sources
) -> None:
    _forget(sources, path)
    target[key] = copy.deepcopy(value)
    _record(sources, path, value, layer)


def _is_permission(path: KeyPath) -> bool:
    return path == ("permission",) or (len(path) == 3 and path[0] == "agent" and path[2] == "permission")


def _as_wildcard_map(value: Any, path: KeyPath, sources: Sources) -> Any:
    """A bare action merged with a mapping means "every key → action", placed first (lowest precedence)."""
    if isinstance(value, str) and value in ACTIONS:
        layer = sources.pop(path, None)
        if layer is not None:
            sources[(*path, "*")] = layer
        return {"*": value}
    return value


def _merge_ordered(
    target: dict[str, Any], key: str, incoming: Any, path: KeyPath, layer: str, sources: Sources, depth: int
) -> None:
    """Merge an ordered permission map (depth 2: permission → pattern → action); re-set keys move last."""
    current = _as_wildcard_map(target.get(key), path, sources)
    if not isinstance(incoming, dict) or not isinstance(current, dict):
        target.pop(key, None)  # a replacement also takes the last place
        _replace(target, key, incoming, path, layer, sources)
        return
    merged = current
    for sub_key, sub_value in incoming.items():
        sub_path = (*path, str(sub_key))
        if depth > 1 and sub_key in merged:
            _merge_ordered(merged, sub_key, sub_value, sub_path, layer, sources, depth - 1)
            merged[sub_key] = merged.pop(sub_key)
        else:
            merged.pop(sub_key, None)
            _replace(merged, sub_key, sub_value, sub_path, layer, sources)
    target.pop(key, None)
    target[key] = merged


def merge_into(
    target: dict[str, Any], incoming: dict[str, Any], layer: str, sources: Sources, path: KeyPath = ()
) -> None:
    """Merge ``incoming`` (one layer's data) into ``target`` in place, updating ``sources``."""
    for key, value in incoming.items():
        sub_path = (*path, str(key))
        current = target.get(key)
        if _is_permission(sub_path) and key in target:
            _merge_ordered(target, key, value, sub_path, layer, sources, depth=2)
        elif sub_path == ("instructions",) and isinstance(value, list) and isinstance(current, list):
            for item in value:
                if item not in current:
                    current.append(copy.deepcopy(item))
                    sources[(*sub_path, f"[{len(current) - 1}]")] = layer
        elif isinstance(value, dict) and isinstance(current, dict):
            merge_into(current, value, layer, sources, sub_path)
        elif sub_path == ("instructions",) and isinstance(value, list):
            _forget(sources, sub_path)
            target[key] = copy.deepcopy(value)
            for i in range(len(value)):
                sources[(*sub_path, f"[{i}]")] = layer
        else:
            _replace(target, key, value, sub_path, layer, sources)
