"""Images and PDFs in a request, kept for the models that read them and turned into a note otherwise.

The history carries attachments as OpenAI content parts (``image_url``, ``file``); what a model
accepts comes from its config (``modalities.input``) or litellm's model map. A part it cannot take
becomes a short text, so the model knows a file was there instead of the request being refused.
"""

from __future__ import annotations

from typing import Any

from core.llm.model import ModelInfo


def _note(part: dict[str, Any], kind: str) -> dict[str, Any]:
    name = (part.get("file") or {}).get("filename") if kind == "PDF" else None
    label = f" {name}" if name else ""
    return {"type": "text", "text": f"[Attached {kind}{label} cannot be shown to this model]"}


def _adapt_content(content: list[Any], model: ModelInfo) -> list[Any]:
    out: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "image_url" and not model.accepts_images:
            out.append(_note(part, "image"))
        elif kind == "file" and not model.accepts_pdf:
            out.append(_note(part, "PDF"))
        else:
            out.append(part)
    return out


def _has_media(content: list[Any]) -> bool:
    return any(isinstance(p, dict) and p.get("type") in ("image_url", "file") for p in content)


def adapt(messages: list[dict[str, Any]], model: ModelInfo) -> list[dict[str, Any]]:
    """``messages`` with every attachment ``model`` cannot read replaced by a note (copies what changes)."""
    if model.accepts_images and model.accepts_pdf:
        return messages
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and _has_media(content):
            message = {**message, "content": _adapt_content(content, model)}
        out.append(message)
    return out
