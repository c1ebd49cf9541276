"""PDF and image attachments reach the providers that accept them, and only those (request snapshots)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest

from core.config.loader import Layer
from core.config.schema import Config
from core.errors import InvalidInputError
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.message.models import MessageAdapter, MessageWithParts, PartAdapter
from core.message.prompt_input import AgentInput, FileInput, TextInput
from core.open import open_agent
from core.session.convert import to_model_messages
from demo import FakeModelServer, Turn
from demo.config import fake_model_config
from tests.unit.llm.conftest import collect

PNG = "data:image/png;base64,iVBORw0KGgo="
PDF = "data:application/pdf;base64,JVBERi0xLjQK"


def user_with_attachments() -> MessageWithParts:
    info = {
        "id": "msg_1",
        "sessionID": "ses_1",
        "role": "user",
        "time": {"created": 1},
        "agent": "build",
        "model": {"providerID": "p", "modelID": "m"},
    }
    parts = [
        {"type": "text", "text": "What do these say?"},
        {"type": "file", "mime": "image/png", "filename": "shot.png", "url": PNG},
        {"type": "file", "mime": "application/pdf", "filename": "spec.pdf", "url": PDF},
    ]
    return MessageWithParts(
        info=MessageAdapter.validate_python(info),
        parts=[
            PartAdapter.validate_python({"sessionID": "ses_1", "messageID": "msg_1", "id": f"prt_{i}", **p})
            for i, p in enumerate(parts)
        ],
    )


def model_config(srv: FakeModelServer, protocol: str, route: str, name: str, extra: dict[str, Any]) -> Config:
    base = srv.openai_base if protocol == "openai" else srv.base_url
    model = {"limit": {"context": 100_000, "output": 4_096}, **extra}
    return Config.model_validate(
        {
            "provider": {
                "fake": {
                    "litellm_provider": protocol,
                    "options": {"api_base": base, "api_key": "k", "agentls_route": route},
                    "models": {name: model},
                }
            }
        }
    )


async def sent_content(srv: FakeModelServer, config: Config, name: str) -> list[dict[str, Any]]:
    srv.script(Turn.text("ok"))
    messages = to_model_messages([user_with_attachments()])
    await collect(LLMRequest(resolve_model(config, f"fake/{name}"), ["sys"], messages))
    body = srv.requests[-1].body
    assert isinstance(body, dict)
    [user] = [m for m in body["messages"] if m["role"] == "user"]
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in user["content"]]


@pytest.mark.parametrize("route", ["anthropic", "litellm"])
async def test_claude_gets_an_image_block_and_a_document_block(srv: FakeModelServer, route: str) -> None:
    content = await sent_content(
        srv, model_config(srv, "anthropic", route, "claude-sonnet-4-5", {}), "claude-sonnet-4-5"
    )
    assert content == [
        {"type": "text", "text": "What do these say?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
        },
    ]


@pytest.mark.parametrize("route", ["openai", "litellm"])
async def test_an_openai_model_that_reads_pdfs_gets_an_image_and_a_file_part(
    srv: FakeModelServer, route: str
) -> None:
    content = await sent_content(srv, model_config(srv, "openai", route, "gpt-4o", {}), "gpt-4o")
    assert content[0] == {"type": "text", "text": "What do these say?"}
    assert content[1] == {"type": "image_url", "image_url": {"url": PNG}}
    assert content[2]["type"] == "file"
    assert content[2]["file"]["file_data"] == PDF and content[2]["file"]["filename"] == "spec.pdf"


async def test_a_text_only_model_gets_notes_instead_of_media(srv: FakeModelServer) -> None:
    extra = {"modalities": {"input": ["text"]}}
    content = await sent_content(srv, model_config(srv, "openai", "openai", "local-llm", extra), "local-llm")
    assert [block["type"] for block in content] == ["text", "text", "text"]
    assert "image" in content[1]["text"] and "cannot" in content[1]["text"]
    assert "spec.pdf" in content[2]["text"]


async def test_configured_modalities_open_pdfs_to_a_model_litellm_does_not_know(srv: FakeModelServer) -> None:
    extra = {"modalities": {"input": ["text", "image", "pdf"]}}
    content = await sent_content(srv, model_config(srv, "openai", "openai", "local-vl", extra), "local-vl")
    assert [block["type"] for block in content] == ["text", "image_url", "file"]


PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


async def test_a_pdf_attached_to_a_prompt_reaches_claude_as_a_document(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "spec.pdf").write_bytes(PDF_BYTES)
    prompt = [TextInput(type="text", text="Summarise"), FileInput(type="file", path="spec.pdf")]
    async with FakeModelServer() as main, FakeModelServer() as titles:
        config = fake_model_config(main, titles, route="anthropic")
        config["provider"]["fake"]["models"]["m"]["modalities"] = {"input": ["text", "image", "pdf"]}
        main.script(Turn.text("It is a tiny PDF."))
        app = await open_agent(project, layers=[Layer("t", config, None)], data_dir=tmp_path / "d")
        try:
            session = await app.create_session()
            await asyncio.wait_for(app.prompt(session.id, prompt), 30)
        finally:
            await app.close()
        body = main.requests[0].body
    assert isinstance(body, dict)
    documents = [b for m in body["messages"] for b in m["content"] if b.get("type") == "document"]
    assert [d["source"]["data"] for d in documents] == [base64.b64encode(PDF_BYTES).decode()]


# A 1×1 PNG, as a client would send a pasted screenshot (base64, no file on disk).
PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


async def _prompt_once(tmp_path: Path, prompt: list[TextInput | FileInput | AgentInput]) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    async with FakeModelServer() as main, FakeModelServer() as titles:
        config = fake_model_config(main, titles)
        config["provider"]["fake"]["models"]["m"]["modalities"] = {"input": ["text", "image", "pdf"]}
        main.script(Turn.text("A single pixel."))
        app = await open_agent(project, layers=[Layer("t", config, None)], data_dir=tmp_path / "d")
        try:
            session = await app.create_session()
            await asyncio.wait_for(app.prompt(session.id, prompt), 30)
            stored = await app.messages(session.id)
        finally:
            await app.close()
        return main.requests[0].body, stored


async def test_an_image_sent_inline_reaches_the_model_and_is_stored(tmp_path: Path) -> None:
    shot = FileInput(path="screenshot.png", mime="image/png", data=PNG_1PX)
    body, stored = await _prompt_once(tmp_path, [TextInput(text="What is this?"), shot])
    images = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_1PX}"}} in images
    # The message records what was sent (a restart re-sends the same image).
    files = [p for p in stored[0].parts if p.type == "file"]
    assert [(f.filename, f.mime) for f in files] == [("screenshot.png", "image/png")]
    assert not (tmp_path / "project" / "screenshot.png").exists()


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (FileInput(path="notes.txt", mime="text/plain", data="aGk="), "attach text files by path"),
        (FileInput(path="x.png", mime="image/png", data="not base64!"), "not valid base64"),
        (FileInput(path="x.png", data=""), "is empty"),
        (FileInput(path="blob", data="aGk="), "has type unknown"),
    ],
)
async def test_a_bad_inline_attachment_is_refused_with_the_reason(
    tmp_path: Path, item: FileInput, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        await _prompt_once(tmp_path, [TextInput(text="look"), item])


async def test_an_image_attached_by_path_has_the_media_limit_not_the_text_one(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    png = base64.b64decode(PNG_1PX)
    (project / "big.png").write_bytes(png + b"\0" * 3_000_000)  # over the 2 MB of a text file
    body, _ = await _prompt_once(tmp_path, [TextInput(text="look"), FileInput(path="big.png")])
    images = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert any(b["type"] == "image_url" for b in images)
    (project / "huge.png").write_bytes(png + b"\0" * 10_000_001)
    with pytest.raises(InvalidInputError, match=r"huge\.png is 10,000,071 bytes; the limit is 10,000,000"):
        await _prompt_once(tmp_path, [TextInput(text="look"), FileInput(path="huge.png")])
