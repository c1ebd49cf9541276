"""MCP resources as context items: a real SDK stdio server's resources and resource templates
listed, each attached as ``@server:uri`` with its text read by ``resources/read`` and counted as
other items, binary and oversized ones refused with the reason, and the text reaching the model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from core.message.context_items import McpResourceItem
from core.message.prompt_input import ContextInput, TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


def servers() -> dict[str, Any]:
    return {"docs": {"type": "local", "command": [sys.executable, str(SERVER)]}}


async def test_resources_and_templates_are_listed(make_app: AppFactory) -> None:
    app = await make_app(mcp=servers())
    listed = await app.mcp_resources()
    assert [(r.server, r.uri, r.mime_type) for r in listed.resources] == [
        ("docs", "docs://readme", "text/markdown"),
        ("docs", "docs://logo", "image/png"),
        ("docs", "docs://big", "text/plain"),
    ]
    [note] = listed.templates
    assert (note.server, note.uri_template, note.arguments, note.description) == (
        "docs", "notes://{name}", ("name",), "A note by name"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("item", "label", "text"),
    [
        (
            {"server": "docs", "uri": "docs://readme"},
            "docs:docs://readme",
            '<mcp-resource server="docs" uri="docs://readme" mimeType="text/markdown">\n# Docs\n'
            "The docs server's readme: use explain for symbols.\n</mcp-resource>",
        ),
        (
            {"uri": "docs://readme"},  # no server: the one that lists it
            "docs:docs://readme",
            "use explain for symbols",
        ),
        (
            {"server": "docs", "template": "notes://{name}", "arguments": {"name": "todo list"}},
            "docs:notes://todo%20list",
            "The note called todo list.",
        ),
        ({"uri": "notes://plan"}, "docs:notes://plan", "The note called plan."),  # a template makes it
    ],
)
async def test_a_resource_resolves_to_its_text_and_counts(
    make_app: AppFactory, item: dict[str, Any], label: str, text: str
) -> None:
    app = await make_app(mcp=servers())
    [resolved] = await app.resolve_context(None, [McpResourceItem(kind="mcp", **item)])
    assert resolved.error is None
    assert (resolved.kind, resolved.label) == ("mcp", label)
    assert text in resolved.text and resolved.tokens > 0


@pytest.mark.parametrize(
    ("item", "error"),
    [
        ({"server": "docs", "uri": "docs://logo"}, "docs:docs://logo is binary (image/png): only text"),
        ({"server": "docs", "uri": "docs://big"}, "docs://big has 1,500,000 characters; at most 400,000"),
        ({"server": "docs", "uri": "docs://nothing"}, "the MCP server docs could not read docs://nothing"),
        ({"uri": "other://x"}, "no running MCP server lists the resource other://x"),
        ({"server": "gone", "uri": "docs://readme"}, "no MCP server gone is running (running: docs)"),
        ({"server": "docs", "template": "notes://{name}"}, "the resource template notes://{name} needs name"),
    ],
)  # fmt: skip
async def test_what_cannot_be_attached_says_why_and_the_others_resolve(
    make_app: AppFactory, item: dict[str, Any], error: str
) -> None:
    app = await make_app(mcp=servers())
    bad, good = await app.resolve_context(
        None, [McpResourceItem(kind="mcp", **item), McpResourceItem(kind="mcp", uri="docs://readme")]
    )
    assert bad.error is not None and error in bad.error
    assert (bad.text, bad.tokens) == ("", 0)
    assert good.error is None and good.text


async def test_an_attached_resource_reaches_the_model(make_app: AppFactory, model: FakeModelServer) -> None:
    app = await make_app(mcp=servers())
    session = await app.create_session()
    [resolved] = await app.resolve_context(session.id, [McpResourceItem(kind="mcp", uri="notes://plan")])
    model.script(Turn.text("ok"))
    context = ContextInput(kind=resolved.kind, label=resolved.label, text=resolved.text)
    await app.prompt(session.id, [TextInput(text="summarise"), context])
    sent = str(model.requests[-1].messages)
    assert "The note called plan." in sent and "summarise" in sent
