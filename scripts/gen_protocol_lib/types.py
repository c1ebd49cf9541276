"""JSON Schema to type expressions: one walker, two spellings (TypeScript and LuaCATS).

Only the subset pydantic writes is read: ``$ref``, ``anyOf``/``oneOf``, ``const``/``enum``, the
scalar types, arrays (``items``, ``prefixItems``) and objects (``properties``,
``additionalProperties``). Anything else is an error, so that a new kind of field is noticed here
rather than typed ``unknown``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

Schema = dict[str, Any]


class UnsupportedSchema(ValueError):
    """A schema the writers cannot spell."""


class Spelling:
    """How one language writes the type expressions."""

    name_prefix = ""
    union = " | "
    unknown = "unknown"
    null = "null"
    json_object = "JsonObject"
    scalars: ClassVar[dict[str, str]] = {
        "string": "string",
        "integer": "number",
        "number": "number",
        "boolean": "boolean",
    }

    def array(self, item: str) -> str:
        return f"({item})[]" if "|" in item or " " in item else f"{item}[]"

    def record(self, value: str) -> str:
        return f"{{ [key: string]: {value} }}"

    def tuple_(self, items: list[str]) -> str:
        return f"[{', '.join(items)}]"

    def literal(self, value: Any) -> str:
        return json.dumps(value)

    def inline_object(self, fields: list[tuple[str, bool, str]]) -> str:
        body = "; ".join(f"{name}{'' if required else '?'}: {kind}" for name, required, kind in fields)
        return f"{{ {body} }}"

    def ref(self, name: str) -> str:
        return self.name_prefix + name


class LuaSpelling(Spelling):
    """LuaCATS as lua-language-server reads it."""

    name_prefix = "agentls."
    union = "|"
    unknown = "any"
    null = "nil"
    json_object = "table<string, any>"
    scalars: ClassVar[dict[str, str]] = {
        "string": "string",
        "integer": "integer",
        "number": "number",
        "boolean": "boolean",
    }

    def record(self, value: str) -> str:
        return f"table<string, {value}>"

    def inline_object(self, fields: list[tuple[str, bool, str]]) -> str:
        body = ", ".join(f"{name}{'' if required else '?'}: {kind}" for name, required, kind in fields)
        return f"{{ {body} }}"


def is_object(schema: Schema) -> bool:
    """Whether a definition is an object with named fields (an interface, a class)."""
    return schema.get("type") == "object" and "properties" in schema


def fields(schema: Schema, spell: Spelling) -> list[tuple[str, bool, str]]:
    """An object's fields: name, required, type (an optional field's ``null`` is left out: the
    server leaves the key out instead)."""
    required = set(schema.get("required", ()))
    out = []
    for name, prop in schema["properties"].items():
        is_required = name in required
        out.append((name, is_required, expression(prop, spell, drop_null=not is_required)))
    return out


def expression(schema: Any, spell: Spelling, *, drop_null: bool = False) -> str:
    """The type expression of ``schema``."""
    if schema is True or schema == {}:
        return spell.unknown
    if not isinstance(schema, dict):
        raise UnsupportedSchema(f"not a schema: {schema!r}")
    if "$ref" in schema:
        return spell.ref(schema["$ref"].rsplit("/", 1)[-1])
    if "const" in schema:
        return spell.literal(schema["const"])
    if "enum" in schema:
        return spell.union.join(spell.literal(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            members = [m for m in schema[key] if not (drop_null and m == {"type": "null"})]
            return spell.union.join(dict.fromkeys(expression(m, spell) for m in members))
    kind = schema.get("type")
    if kind in spell.scalars:
        return spell.scalars[kind]
    if kind == "null":
        return spell.null
    if kind == "array":
        if "prefixItems" in schema:
            return spell.tuple_([expression(item, spell) for item in schema["prefixItems"]])
        return spell.array(expression(schema.get("items", {}), spell))
    if kind == "object":
        if "properties" in schema:
            return spell.inline_object(fields(schema, spell))
        extra = schema.get("additionalProperties", True)
        if extra is True or extra is False:
            return spell.json_object
        return spell.record(expression(extra, spell))
    if kind is None and set(schema) <= {"description", "title", "default"}:
        return spell.unknown
    raise UnsupportedSchema(f"cannot spell the schema {json.dumps(schema)[:200]}")
