"""ACP prompt content blocks as the core's prompt inputs.

Text stays text. A link naming a file becomes a file attachment read through the workspace — so
through the client, whose buffer it may be — keeping a line range given in the URI fragment
(``#L10:20`` or ``#L10-20``, 1-based); a link to a folder becomes a listing of it. An embedded
resource's text is what the client sent, so it is used as sent (an unsaved buffer, a file that is
not on disk), labelled with its path; embedded text of other URIs is passed as text. Images, and
embedded blobs that are images or PDFs, go to the model as attachments (base64, as the client sent
them). One attachment that cannot be attached (missing, too large, bad base64, a blob of another
type) never fails the prompt: the model is told, in the request, what could not be attached and why.
Audio is refused (``promptCapabilities`` announces images, not audio).
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import re
import stat
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

from acp_server.context_links import ContextLink, context_link
from acp_server.errors import invalid_params
from core.host_tools import number_line, split_lines
from core.message.prompt_input import (
    IMAGE_MIMES,
    MAX_INLINE_BYTES,
    MAX_MEDIA_BYTES,
    AgentInput,
    FileInput,
    Position,
    Range,
    TextInput,
)

log = logging.getLogger(__name__)

Inputs = list[TextInput | FileInput | AgentInput | ContextLink]
_LINES = re.compile(r"^L(\d+)(?:[:-]L?(\d+))?$")
MAX_LISTING = 500  # entries of an attached folder


def to_inputs(blocks: list[Any], cwd: Path) -> Inputs:
    """The core inputs for a ``session/prompt`` (raises invalid params for what it cannot take)."""
    inputs: Inputs = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            if block.text:
                inputs.append(TextInput(text=block.text))
        elif isinstance(block, ResourceContentBlock):
            context = context_link(block.uri)  # @changes, @session, @folder, @url, MCP: resolved later
            inputs.append(context if context is not None else linked(block.uri, cwd))
        elif isinstance(block, ImageContentBlock):
            inputs.append(_media(block.uri or f"image{len(inputs) + 1}", block.mime_type, block.data))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, BlobResourceContents):
                inputs.append(_media(resource.uri, resource.mime_type, resource.blob))
                continue
            assert isinstance(resource, TextResourceContents)
            inputs.append(embedded(resource.uri, resource.text, cwd))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise invalid_params(f"{kind} content is not supported: agentls takes text, files and images")
    if not inputs:
        raise invalid_params("the prompt is empty")
    return inputs


def not_attached(name: str, reason: str) -> TextInput:
    """What the model reads instead of an attachment that could not be attached."""
    log.info("attachment %s not attached: %s", name, reason)
    return TextInput(text=f"[The user attached {name}, but it could not be attached: {reason}.]")


def linked(uri: str, cwd: Path) -> TextInput | FileInput:
    """A link: a file to read, a folder to list, or a note saying why it could not be attached."""
    attached = file_input(uri, cwd)
    if attached is None:
        return TextInput(text=uri)  # another scheme: the link itself is the content
    path = Path(attached.path)
    try:
        info = path.stat()
    except OSError as exc:
        return not_attached(uri, f"{exc.strerror or exc} ({path})")
    if stat.S_ISDIR(info.st_mode):
        return TextInput(text=listing(path, cwd))
    if not stat.S_ISREG(info.st_mode):
        return not_attached(uri, "not a regular file")
    mime = mimetypes.guess_type(path.name)[0]
    media = mime in IMAGE_MIMES or mime == "application/pdf"
    limit = MAX_MEDIA_BYTES if media else MAX_INLINE_BYTES
    if info.st_size > limit:
        return not_attached(uri, f"it is {info.st_size:,} bytes; the limit is {limit:,}")
    return attached


def listing(path: Path, cwd: Path) -> str:
    """A folder as the model reads it: its entries, folders marked with a slash."""
    try:
        entries = sorted(path.iterdir(), key=lambda entry: entry.name)
    except OSError as exc:
        return f"[The user attached the folder {path}, but it could not be listed: {exc.strerror or exc}.]"
    names = [entry.name + ("/" if entry.is_dir() else "") for entry in entries if entry.name != ".git"]
    shown = names[:MAX_LISTING]
    if len(names) > len(shown):
        shown.append(f"... and {len(names) - len(shown)} more entries")
    return f'<directory path="{_label(path, cwd)}">\n' + "\n".join(shown) + "\n</directory>"


def embedded(uri: str, text: str, cwd: Path) -> TextInput:
    """An embedded text resource as the client sent it; a file's lines numbered as the core does."""
    attached = file_input(uri, cwd)
    if attached is None:
        return TextInput(text=text)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_INLINE_BYTES:
        return not_attached(uri, f"its text is over {MAX_INLINE_BYTES:,} bytes")
    first = attached.range.start.line if attached.range else 0
    lines = split_lines(text)
    numbered = "\n".join(number_line(first + n, line) for n, line in enumerate(lines))
    label = _label(Path(attached.path), cwd)
    span = f' lines="{first + 1}-{first + len(lines)}"' if attached.range else ""
    return TextInput(text=f'<file path="{label}"{span}>\n{numbered}\n</file>')


def _label(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


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


def _media(uri: str, mime: str | None, data: str) -> FileInput | TextInput:
    """Content sent inline (an image, a PDF blob), or a note when it cannot go to the model."""
    parsed = urlparse(uri)
    name = Path(unquote(parsed.path)).name if parsed.path else ""
    mime = mime or mimetypes.guess_type(name)[0]
    if mime not in IMAGE_MIMES and mime != "application/pdf":
        return not_attached(
            name or uri, f"its type is {mime or 'unknown'}; inline content may be an image or a PDF"
        )
    try:
        size = len(base64.b64decode(data, validate=True))
    except ValueError as exc:
        return not_attached(name or uri, f"its content is not valid base64 ({exc})")
    if size == 0 or size > MAX_MEDIA_BYTES:
        return not_attached(name or uri, f"it is {size:,} bytes; the limit is {MAX_MEDIA_BYTES:,}")
    return FileInput(path=name or uri, mime=mime, data=data)
