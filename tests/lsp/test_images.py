"""Images in ``agent/session/prompt``: sent inline (base64 ``data``) or by URI, they reach the model as
image content; inline content that is not a usable image is refused with the field and the reason."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from core.message.prompt_input import MAX_MEDIA_BYTES
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri

# A 1×1 PNG, as a client sends a pasted screenshot.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    config = agent_config(model, title_model)
    config["provider"]["fake"]["models"]["m"]["modalities"] = {"input": ["text", "image"]}
    return {"config": config}


def user_content(model: FakeModelServer, index: int) -> list[dict[str, Any]]:
    user = [m for m in model.requests[index].messages if m.get("role") == "user"][-1]
    content = user["content"]
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


async def test_inline_and_on_disk_images_reach_the_model_as_images(
    plugin: Connected, model: FakeModelServer
) -> None:
    (plugin.root / "logo.png").write_bytes(base64.b64decode(PNG))
    model.script(Turn.text("A pixel."), Turn.text("The logo."))
    sid = (await plugin.call("agent/session/create", {}))["id"]
    pasted = {"type": "file", "mime": "image/png", "data": PNG, "name": "screenshot.png"}
    parts = [{"type": "text", "text": "what is this?"}, pasted]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    assert image in user_content(model, 0), user_content(model, 0)
    # The stored user message keeps the image with the name the client gave it.
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    files = [p for p in messages[0]["parts"] if p["type"] == "file"]
    assert [(f["filename"], f["mime"]) for f in files] == [("screenshot.png", "image/png")]

    # An image file on disk by URI: the server reads it and sends it the same way.
    parts = [{"type": "text", "text": "and this?"}, {"type": "file", "uri": uri(plugin.root / "logo.png")}]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    assert image in user_content(model, 1), user_content(model, 1)


TOO_BIG = base64.b64encode(b"\0" * (MAX_MEDIA_BYTES + 1)).decode()


@pytest.mark.parametrize(
    ("part", "field", "reason"),
    [
        ({"mime": "image/png", "data": "%%%"}, "parts.1.file.data", "not valid base64"),
        ({"mime": "image/png", "data": TOO_BIG}, "parts.1.file.data", f"the limit is {MAX_MEDIA_BYTES:,}"),
        ({"mime": "text/plain", "data": PNG}, "parts.1.file.data", "inline data must be an image"),
        ({"data": PNG}, "parts.1.file.data", "mime (missing)"),
        ({"mime": "image/png", "data": ""}, "parts.1.file.data", "the image is empty"),
        ({"mime": "image/png", "data": PNG, "uri": "file:///x.png"}, "parts.1.file", "not both"),
        ({"mime": "image/png"}, "parts.1.file", "needs uri"),
    ],
)
async def test_bad_inline_content_is_refused_with_the_field_and_the_reason(
    plugin: Connected, model: FakeModelServer, part: dict[str, Any], field: str, reason: str
) -> None:
    sid = (await plugin.call("agent/session/create", {}))["id"]
    parts = [{"type": "text", "text": "look"}, {"type": "file", **part}]
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    assert caught.value.code == -32602
    assert f"{field}: " in caught.value.message and reason in caught.value.message, caught.value.message
    # Refused at the edge: no turn ran, the session is usable.
    assert model.requests == []
    model.script(Turn.text("Fine."))
    answer = await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts[:1]})
    assert answer["info"]["finish"] == "stop"
