"""Turn a pydantic parameter model into the JSON schema that providers accept for a tool."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from pydantic import BaseModel


def tool_parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without titles or ``$ref``s, closed with ``additionalProperties: false``.

    A fresh dict at every call (whoever sends it may change it); the schema itself is made once
    per model: pydantic makes it anew at each ``model_json_schema``, 6-9 ms for the 13 built-in
    tools, and every step of a turn declares them all."""
    schema: dict[str, Any] = json.loads(_schema_text(model))
    return schema


@cache
def _schema_text(model: type[BaseModel]) -> str:
    raw = model.model_json_schema()
    defs: dict[str, Any] = raw.pop("$defs", {})
    cleaned = _clean(raw, defs)
    assert isinstance(cleaned, dict)
    return json.dumps(cleaned)


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        # Several providers reject $ref/$defs; the schemas are small, so inline them.
        target = defs[ref.rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(prop, defs) for name, prop in value.items()}
        else:
            out[key] = _clean(value, defs)
    out = _collapse_optional(out)
    if out.get("type") == "object":
        out.setdefault("additionalProperties", False)
    return out


def _collapse_optional(node: dict[str, Any]) -> dict[str, Any]:
    """``T | None = None`` becomes plain ``T``: optional means "not required", not "nullable"."""
    variants = node.get("anyOf")
    if not isinstance(variants, list) or node.get("default", ...) is not None:
        return node
    non_null = [v for v in variants if v != {"type": "null"}]
    if len(non_null) != 1 or len(non_null) == len(variants):
        return node
    rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
    return {**non_null[0], **rest}
