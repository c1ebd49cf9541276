"""An MCP server's ``elicitation/create`` as the question dialog every client already shows.

Each field of the requested schema is one question: an enum (or ``oneOf`` of consts) offers its
values, a boolean offers yes/no, a number or a string is typed; an optional field can be left
empty. A last question shows the server's message and asks to send or decline. Answers are checked
against the schema (type, bounds, lengths, the enum); the fields that fail are asked again with
the reason, until they pass or the user dismisses the form. Dismissed (by the user, or by a client
that cannot show such a form) is ``decline``: the server is always told.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from core.errors import QuestionRejectedError
from core.events import QuestionItem, QuestionOption
from core.record import record

if TYPE_CHECKING:
    from core.tools.context import ToolContext

log = logging.getLogger(__name__)

SEND = "Send"
DECLINE = "Decline"
EMPTY = "Leave empty"
YES, NO = "yes", "no"


@record
class Field:
    """One field of the form: its name, JSON schema, whether it is required, and the choices shown."""

    name: str
    schema: dict[str, Any]
    required: bool
    choices: tuple[tuple[str, Any], ...] = ()  # (label, value) when the field has fixed values

    def question(self, server: str, error: str = "") -> QuestionItem:
        """The question that asks for this field (``error``: why the last answer was refused)."""
        # The header shows the field's name: a title that only repeats it is left out.
        title = str(self.schema.get("title") or "")
        described = str(self.schema.get("description") or "")
        if title.strip().lower() in ("", self.name.lower()):
            text = described or self.name
        else:
            text = title + (f": {described}" if described else "")
        if self.schema.get("default") not in (None, ""):
            text += f" (default: {self.schema['default']})"
        if error:
            text += f" — {error}; answer again"
        options = [QuestionOption(label=label) for label, _ in self.choices]
        if not self.required:
            options.append(QuestionOption(label=EMPTY, description=f"{server} gets no value for {self.name}"))
        multiple = self.schema.get("type") == "array"
        # A fixed set of values (a yes/no, an enum) is answered by its options alone.
        return QuestionItem(
            question=text, header=self.name[:30], options=options, multiple=multiple, custom=not self.choices
        )

    def parse(self, answer: list[str]) -> tuple[bool, Any, str]:
        """(given, value, error): ``given`` False when left empty; ``error`` says what is wrong."""
        picked = [a for a in answer if a.strip() and a != EMPTY]
        if not picked:
            return (False, None, f"{self.name} is required") if self.required else (False, None, "")
        kind = self.schema.get("type")
        if kind == "array":
            values = [self._choice(a) for a in picked]
            if any(v is None for v in values):
                return True, None, f"choose among {', '.join(label for label, _ in self.choices)}"
            return True, values, ""
        text = picked[0].strip()
        if self.choices:
            value = self._choice(text)
            if value is None:
                return True, None, f"{text!r} is not one of {', '.join(label for label, _ in self.choices)}"
            return True, value, ""
        if kind in ("number", "integer"):
            return self._number(text, kind == "integer")
        return self._string(text)

    def _choice(self, label: str) -> Any:
        return next((value for shown, value in self.choices if shown == label), None)

    def _number(self, text: str, integer: bool) -> tuple[bool, Any, str]:
        try:
            number: float = int(text) if integer else float(text)
        except ValueError:
            return True, None, f"{text!r} is not {'a whole number' if integer else 'a number'}"
        if not math.isfinite(number):
            return True, None, f"{text!r} is not a finite number"
        low, high = self.schema.get("minimum"), self.schema.get("maximum")
        if low is not None and number < low:
            return True, None, f"{text} is less than {low}"
        if high is not None and number > high:
            return True, None, f"{text} is more than {high}"
        return True, number, ""

    def _string(self, text: str) -> tuple[bool, Any, str]:
        shortest, longest = self.schema.get("minLength"), self.schema.get("maxLength")
        if shortest is not None and len(text) < shortest:
            return True, None, f"at least {shortest} characters"
        if longest is not None and len(text) > longest:
            return True, None, f"at most {longest} characters"
        if self.schema.get("format") == "email" and "@" not in text:
            return True, None, f"{text!r} is not an e-mail address"
        return True, text, ""


def fields_of(schema: dict[str, Any]) -> list[Field]:
    """The form's fields, in the schema's order."""
    required = set(schema.get("required") or ())
    out: list[Field] = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = dict(prop) if isinstance(prop, dict) else {}
        out.append(Field(name, prop, name in required, _choices(prop)))
    return out


def _choices(prop: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    if prop.get("type") == "boolean":
        return ((YES, True), (NO, False))
    source = prop.get("items", {}) if prop.get("type") == "array" else prop
    for key in ("oneOf", "anyOf"):
        if isinstance(source.get(key), list):
            return tuple((str(o.get("title", o.get("const"))), o.get("const")) for o in source[key])
    if isinstance(source.get("enum"), list):
        names = prop.get("enumNames") or source["enum"]
        return tuple((str(label), value) for label, value in zip(names, source["enum"], strict=False))
    return ()


async def ask_form(
    ctx: ToolContext, server: str, message: str, schema: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Ask the form in the session of the tool call ``ctx``; (action, content) for the server."""
    if ctx.questions is None:
        log.info("MCP server %s elicits in %s, which cannot ask questions: declined", server, ctx.session_id)
        return "decline", {}
    fields = fields_of(schema)
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    todo = fields
    while True:
        items = [f.question(server, errors.get(f.name, "")) for f in todo]
        items.append(
            QuestionItem(
                question=f"The MCP server {server} asks: {message}",
                header=server[:30],
                options=[
                    QuestionOption(label=SEND, description=f"send these answers to {server}"),
                    QuestionOption(label=DECLINE, description=f"tell {server} you decline"),
                ],
                custom=False,
            )
        )
        try:
            answers = await ctx.questions.ask(ctx.session_id, ctx.message_id, ctx.call_id, items)
        except QuestionRejectedError:
            return "decline", {}
        if DECLINE in answers[-1] or SEND not in answers[-1]:
            return "decline", {}
        errors = {}
        for item, answer in zip(todo, answers, strict=False):
            given, value, error = item.parse(answer)
            if error:
                errors[item.name] = error
            elif given:
                content[item.name] = value
            else:
                content.pop(item.name, None)
        if not errors:
            return "accept", content
        todo = [f for f in fields if f.name in errors]
