"""ACP prompt content blocks as the core's prompt inputs.

Text stays text. A link or an embedded resource naming a file becomes a file attachment read
through the workspace — so through the client, whose buffer is what it embedded — keeping a line
range given in the URI fragment (``#L10:20`` or ``#L10-20``, 1-based). Embedded text of other
URIs is passed as text. Images, and embedded blobs that are images or PDFs, go to the model as
attachments (the content itself, base64, as the client sent it); audio and other blobs are refused
(``promptCapabilities`` announces images, not audio).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from acp_server.errors import invalid_params
from core.message.prompt_input import AgentInput, FileInput, Position, Range, TextInput

Inputs = list[TextInput | FileInput | AgentInput]
_LINES = re.compile(r"^L(\d+)(?:[:-]L?(\d+))?$")


def to_inputs(blocks: list[Any], cwd: Path) -> Inputs:
    """The core inputs for a ``session/prompt`` (raises invalid params for what it cannot take)."""
    inputs: Inputs = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            if block.text:
                inputs.append(TextInput(text=block.text))
        elif isinstance(block, ResourceContentBlock):
            attached = file_input(block.uri, cwd)
            inputs.append(attached or TextInput(text=block.uri))
        elif isinstance(block, ImageContentBlock):
            inputs.append(_media(block.uri or f"image{len(inputs) + 1}", block.mime_type, block.data))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, BlobResourceContents):
                inputs.append(_media(resource.uri, resource.mime_type, resource.blob))
                continue
            assert isinstance(resource, TextResourceContents)
            attached = file_input(resource.uri, cwd)
            inputs.append(attached or TextInput(text=resource.text))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise invalid_params(f"{kind} content is not supported: agentls takes text, files and images")
    if not inputs:
        raise invalid_params("the prompt is empty")
    return inputs


def file_input(uri: str, cwd: Path) -> FileInput | None:
    """A file attachment for a ``file://`` URI (or a plain path), None for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return None
    path = Path(unquote(parsed.path))
    if not parsed.path:
        return None
    if not path.is_absolute():
        path = cwd / path
    match = _LINES.match(parsed.fragment)
    span = None
    if match:
        first = int(match.group(1))
        last = int(match.group(2) or first)
        span = Range(
            start=Position(line=max(first - 1, 0), character=0),
            end=Position(line=max(last - 1, 0), character=0),
        )
    return FileInput(path=str(path), range=span)


def _media(uri: str, mime: str | None, data: str) -> FileInput:
    """Content sent inline (an image, a PDF blob): the core checks its type, base64 and size."""
    parsed = urlparse(uri)
    name = Path(unquote(parsed.path)).name if parsed.path else ""
    return FileInput(path=name or uri, mime=mime, data=data)
