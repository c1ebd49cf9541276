"""Images and PDFs in a prompt reach the model; one it cannot take is named to the model instead, and
audio (not announced) is refused clearly."""

from __future__ import annotations

import base64
import json

from demo.fake_script import Turn
from tests.acp.conftest import Acp

# A 1×1 PNG, as a client sends a pasted screenshot.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").decode()


def _content(body: object) -> list[dict[str, object]]:
    assert isinstance(body, dict)
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    return (
        user["content"] if isinstance(user["content"], list) else [{"type": "text", "text": user["content"]}]
    )


async def test_an_image_and_a_pdf_blob_reach_the_model(acp: Acp) -> None:
    config = json.loads((acp.project / "agentls.json").read_text())
    config["provider"]["fake"]["models"]["m"]["modalities"] = {"input": ["text", "image", "pdf"]}
    (acp.project / "agentls.json").write_text(json.dumps(config))
    acp.model.script(Turn.text("A pixel and a PDF."), Turn.text("No image."), Turn.text("Still here."))
    prompts = [
        [
            {"type": "text", "text": "What are these?"},
            {"type": "image", "mimeType": "image/png", "data": PNG},
            {
                "type": "resource",
                "resource": {"uri": "file:///tmp/spec.pdf", "mimeType": "application/pdf", "blob": PDF},
            },
        ],
        # Not attached: the model is told why, and the prompt goes on without it.
        [{"type": "text", "text": "and this?"}, {"type": "image", "mimeType": "image/png", "data": "%%%"}],
        # Refused with the reason (audio is not announced); the session goes on.
        [{"type": "audio", "mimeType": "audio/wav", "data": PNG}],
        [{"type": "text", "text": "hello again"}],
    ]
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    assert run.results["initialize"]["agentCapabilities"]["promptCapabilities"]["image"] is True
    first, bad_image, audio, last = run.results["answers"]
    assert first == {"stopReason": "end_turn"}
    content = _content(acp.model.requests[0].body)
    assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}} in content
    files = [c for c in content if c["type"] == "file"]
    assert files == [
        {"type": "file", "file": {"filename": "spec.pdf", "file_data": f"data:application/pdf;base64,{PDF}"}}
    ]
    assert bad_image == {"stopReason": "end_turn"}
    told = json.dumps(_content(acp.model.requests[1].body))
    assert "could not be attached" in told and "base64" in told and "image_url" not in told
    assert audio["error"]["code"] == -32602 and "audio" in audio["error"]["message"]
    assert last == {"stopReason": "end_turn"}
    assert len(acp.model.requests) == 3 and run.agent_exit == 0
