"""The elicitation form's fields: which choices each schema offers, how answers are checked (table
driven), and a session that cannot ask questions declining."""

from __future__ import annotations

from typing import Any

import pytest

from core.tools.context import ToolContext
from core.tools.mcp_elicit import EMPTY, ask_form, fields_of

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "env": {"type": "string", "enum": ["dev", "prod"], "enumNames": ["Development", "Production"]},
        "tier": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "tags": {
            "type": "array",
            "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
        },
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number"},
        "name": {"type": "string", "minLength": 2, "maxLength": 5},
        "mail": {"type": "string", "format": "email"},
        "ok": {"type": "boolean"},
    },
    "required": ["env", "count", "ok"],
}


def field(name: str) -> Any:
    return next(f for f in fields_of(SCHEMA) if f.name == name)


def test_each_field_offers_its_choices_and_optional_ones_can_be_left_empty() -> None:
    labels = {f.name: [o.label for o in f.question("srv").options] for f in fields_of(SCHEMA)}
    assert labels == {
        "env": ["Development", "Production"],
        "tier": ["Small", "Large", EMPTY],
        "tags": ["A", "B", EMPTY],
        "count": [],
        "ratio": [EMPTY],
        "name": [EMPTY],
        "mail": [EMPTY],
        "ok": ["yes", "no"],
    }
    assert field("tags").question("srv").multiple and not field("env").question("srv").multiple
    # Fixed values (a choice, a yes/no) are answered by their options alone; the others may be typed.
    typed = {f.name: f.question("srv").custom for f in fields_of(SCHEMA)}
    assert typed == {
        "env": False,
        "tier": False,
        "tags": False,
        "ok": False,
        "count": True,
        "ratio": True,
        "name": True,
        "mail": True,
    }


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        ({"title": "Environment", "description": "Where to deploy"}, "Where to deploy"),  # the header says it
        ({"title": "Target", "description": "Where to deploy"}, "Target: Where to deploy"),
        ({"title": "Target"}, "Target"),
        ({"description": "Where to deploy"}, "Where to deploy"),
        ({}, "environment"),
    ],
)
def test_a_question_leaves_out_the_name_its_header_shows(schema: dict[str, Any], text: str) -> None:
    form = {"type": "object", "properties": {"environment": {"type": "string", **schema}}}
    question = fields_of(form)[0].question("srv")
    assert (question.header, question.question) == ("environment", text)


@pytest.mark.parametrize(
    ("name", "answer", "expected"),
    [
        ("env", ["Production"], (True, "prod", "")),
        ("env", ["staging"], (True, None, "'staging' is not one of Development, Production")),
        ("env", [], (False, None, "env is required")),
        ("tier", ["Large"], (True, "l", "")),
        ("tier", [EMPTY], (False, None, "")),
        ("tags", ["A", "B"], (True, ["a", "b"], "")),
        ("tags", ["A", "C"], (True, None, "choose among A, B")),
        ("count", ["3"], (True, 3, "")),
        ("count", ["3.5"], (True, None, "'3.5' is not a whole number")),
        ("count", ["0"], (True, None, "0 is less than 1")),
        ("count", ["11"], (True, None, "11 is more than 10")),
        ("ratio", ["0.25"], (True, 0.25, "")),
        ("ratio", ["nan"], (True, None, "'nan' is not a finite number")),
        ("ratio", ["x"], (True, None, "'x' is not a number")),
        ("name", ["a"], (True, None, "at least 2 characters")),
        ("name", ["abcdef"], (True, None, "at most 5 characters")),
        ("name", [" abc "], (True, "abc", "")),
        ("mail", ["nobody"], (True, None, "'nobody' is not an e-mail address")),
        ("ok", ["no"], (True, False, "")),
        ("ok", ["maybe"], (True, None, "'maybe' is not one of yes, no")),
    ],
)
def test_answers_are_checked_against_the_schema(
    name: str, answer: list[str], expected: tuple[Any, ...]
) -> None:
    assert field(name).parse(answer) == expected


async def test_a_session_that_cannot_ask_declines(ctx: ToolContext) -> None:
    ctx.questions = None
    assert await ask_form(ctx, "srv", "Deploy?", SCHEMA) == ("decline", {})


async def test_a_form_outside_a_tool_call_or_a_url_to_open_is_declined(ctx: ToolContext) -> None:
    from mcp.types import ElicitRequestFormParams, ElicitRequestURLParams

    from core.tools.mcp import _elicit

    form = ElicitRequestFormParams(message="Deploy?", requested_schema=SCHEMA)
    assert (await _elicit("srv", [], form)).action == "decline"  # no call under way: no session to ask in
    url = ElicitRequestURLParams(message="Log in", url="https://example.test/login", elicitation_id="e1")
    assert (await _elicit("srv", [ctx], url)).action == "decline"
