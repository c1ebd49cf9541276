"""The protocol as one JSON Schema document, built from ``lsp_server.methods`` and ``core.events``.

Params are described as the server validates them (pydantic's validation mode), results and events
as the server sends them (serialization mode, where a field whose default is None is left out and
every other field is present). The document's ``methods`` and ``events`` point into ``$defs``; the
TypeScript, LuaCATS and Markdown writers read only this document.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from core.events import Event
from core.message.context_items import ContextItem
from core.message.models import Message, Part, ToolState
from core.message.prompt_input import PromptInput, PromptMode
from lsp_server import methods
from lsp_server.editor_edits import WireCodeAction, WireEdit, WireResolvedAction, WireTextEdit
from lsp_server.protocol import PermissionAnswer, PromptPart

Schema = dict[str, Any]

# Unions and literals the Python source names but pydantic writes inline: the clients get them
# under these names, wherever the same schema occurs.
# (PromptPart is what a client sends: the others are what it receives.)
NAMED: dict[str, tuple[Any, Any]] = {
    "Part": (Part, "serialization"),
    "MessageInfo": (Message, "serialization"),
    "ToolState": (ToolState, "serialization"),
    "PromptPart": (PromptPart, "validation"),
    "ContextItem": (ContextItem, "validation"),
    "PromptInput": (PromptInput, "serialization"),
    "PromptMode": (PromptMode, "serialization"),
    "PermissionAnswer": (PermissionAnswer, "validation"),
}
# Models a client sends that no method's params name: agent/editorQuery's refactoring answers (its
# result differs per query; the server reads these).
ANSWERS: tuple[Any, ...] = (WireTextEdit, WireEdit, WireCodeAction, WireResolvedAction)
# Keys that describe a schema without changing what it accepts.
_NOTES = ("title", "description", "default", "examples")


class WireSchema(GenerateJsonSchema):
    """pydantic's schema, with what the server's dumps leave out (None defaults) not required."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        """In a result, a field is there unless its default is None (``exclude_none`` drops it)."""
        inner = field["schema"]
        if self.mode == "serialization" and inner["type"] == "default":
            return not ("default" in inner and inner["default"] is None)
        return super().field_is_required(field, total)


class CollisionError(ValueError):
    """Two Python types with one name: the generated types would need made-up names."""


def build() -> Schema:
    """The whole protocol: ``methods``, ``events`` and the ``$defs`` they name."""
    inputs: list[tuple[tuple[str, str], Any, TypeAdapter[Any]]] = []
    for method in methods.METHODS:
        if method.params is not methods.EVENT:
            inputs.append(((method.name, "params"), "validation", TypeAdapter(method.params)))
        if method.result is not None and method.result is not Any:
            inputs.append(((method.name, "result"), "serialization", TypeAdapter(method.result)))
    for type_, cls in sorted(Event.REGISTRY.items()):
        inputs.append(((type_, "event"), "serialization", TypeAdapter(cls)))
    for name, (alias, mode) in NAMED.items():
        inputs.append(((name, "named"), mode, TypeAdapter(alias)))
    for model in ANSWERS:
        inputs.append(((model.__name__, "answer"), "validation", TypeAdapter(model)))
    by_mode, document = TypeAdapter.json_schemas(inputs, schema_generator=WireSchema)
    refs = {key: schema for (key, _mode), schema in by_mode.items()}
    defs: dict[str, Schema] = document.get("$defs", {})
    clashes = sorted(name for name in defs if name.endswith(("-Input", "-Output")) or "__" in name)
    if clashes:
        raise CollisionError(
            "two Python types share a name, or one type differs between params and results: "
            + ", ".join(clashes)
            + " (rename one of them in lsp_server/ or core/)"
        )
    for name in NAMED:
        defs[name] = _strip_titles(refs[(name, "named")])
    defs = {name: _optional_not_null(_strip_titles(schema)) for name, schema in defs.items()}
    defs = _name_inline(defs)
    events = {type_: refs[(type_, "event")] for type_ in sorted(Event.REGISTRY)}
    defs["AgentEvent"] = {
        "description": "The params of `agent/event`: one of the core's events.",
        "oneOf": [
            {
                "type": "object",
                "properties": {"type": {"const": type_}, "properties": ref},
                "required": ["type", "properties"],
            }
            for type_, ref in events.items()
        ],
    }
    table: dict[str, Schema] = {}
    for method in methods.METHODS:
        entry: Schema = {"kind": method.kind, "direction": method.direction, "description": method.doc}
        if method.params is methods.EVENT:
            entry["params"] = {"$ref": "#/$defs/AgentEvent"}
        else:
            entry["params"] = refs[(method.name, "params")]
        if method.kind == "request":
            entry["result"] = (
                {"type": "null"}
                if method.result is None
                else {}
                if method.result is Any
                else refs[(method.name, "result")]
            )
        table[method.name] = entry
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "The agentls protocol (generated by scripts/gen_protocol from lsp_server/methods.py)",
        "version": methods.PROTOCOL_VERSION,
        "methods": table,
        "events": events,
        "$defs": dict(sorted(defs.items())),
    }


def _strip_titles(schema: Any) -> Any:
    """The schema without pydantic's property titles ("Sessionid"); a definition keeps its own."""
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _strip_titles(value) for key, value in schema.items() if key != "properties"}
    if "properties" in schema:
        out["properties"] = {
            name: {k: _strip_titles(v) for k, v in prop.items() if k != "title"}
            for name, prop in schema["properties"].items()
        }
    return out


def _optional_not_null(schema: Any) -> Any:
    """Optional fields without their ``null``: the server leaves a field out rather than send null
    (``exclude_none``), so a client reading ``null`` there could not tell the two apart."""
    if isinstance(schema, list):
        return [_optional_not_null(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _optional_not_null(value) for key, value in schema.items()}
    if "properties" in schema:
        required = set(schema.get("required", ()))
        for name, prop in out["properties"].items():
            members = prop.get("anyOf")
            if name in required or members is None or {"type": "null"} not in members:
                continue
            rest = [m for m in members if m != {"type": "null"}]
            notes = {k: v for k, v in prop.items() if k != "anyOf" and not (k == "default" and v is None)}
            out["properties"][name] = {**rest[0], **notes} if len(rest) == 1 else {"anyOf": rest, **notes}
    return out


def canonical(schema: Any) -> str:
    """What a schema accepts, as a string (notes such as titles and defaults left out)."""
    if isinstance(schema, dict):
        schema = {k: v for k, v in schema.items() if k not in _NOTES}
    return json.dumps(schema, sort_keys=True)


def _name_inline(defs: dict[str, Schema]) -> dict[str, Schema]:
    """Every inline occurrence of a ``NAMED`` schema replaced by a reference to it."""
    names = {canonical(defs[name]): name for name in NAMED}

    def walk(schema: Any, own: str | None) -> Any:
        if isinstance(schema, list):
            return [walk(item, own) for item in schema]
        if not isinstance(schema, dict):
            return schema
        name = names.get(canonical(schema))
        if name is not None and name != own:
            notes = {k: v for k, v in schema.items() if k in _NOTES}
            return {"$ref": f"#/$defs/{name}", **notes}
        return {key: walk(value, None) for key, value in schema.items()}

    return {name: walk(schema, name) for name, schema in defs.items()}
