"""Stored history → the model's messages (OpenAI chat format; core.llm converts for other APIs).

Every tool call gets a result, even when the call never finished (interrupted, or its output was
pruned), because providers reject a tool call without one.
"""

from __future__ import annotations

import json
from typing import Any

from core.message.models import (
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    UserMessage,
)

INTERRUPTED = "[Tool execution was interrupted]"
CLEARED = "[Old tool result content cleared]"
COMPACTION_QUESTION = "What did we do so far?"
SUBTASK_NOTE = "The following tool was executed by the user"
TOOL_MEDIA_NOTE = "Attachments returned by the tool calls above:"

Message = dict[str, Any]


def to_model_messages(
    history: list[MessageWithParts], *, media_in_tool_results: bool = False
) -> list[Message]:
    """Convert oldest-first history into chat messages the model sees."""
    out: list[Message] = []
    for msg in history:
        if isinstance(msg.info, UserMessage):
            user = _user(msg)
            if user is not None:
                out.append(user)
        else:
            out.extend(_assistant(msg, media_in_tool_results))
    return out


def _user(msg: MessageWithParts) -> Message | None:
    content: list[dict[str, Any]] = []
    for part in msg.parts:
        if isinstance(part, TextPart):
            if part.ignored or not part.text:
                continue
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, FilePart):
            item = _file_content(part)
            if item is not None:
                content.append(item)
        elif isinstance(part, CompactionPart):
            content.append({"type": "text", "text": COMPACTION_QUESTION})
        elif isinstance(part, SubtaskPart):
            content.append({"type": "text", "text": SUBTASK_NOTE})
    if not content:
        return None
    return {"role": "user", "content": content}


def _file_content(part: FilePart) -> dict[str, Any] | None:
    if part.mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": part.url}}
    if part.mime == "application/pdf" and part.url.startswith("data:"):
        # core.llm keeps it for models that read PDFs and puts a note in its place for the others.
        return {"type": "file", "file": {"filename": part.filename or "document.pdf", "file_data": part.url}}
    if part.mime.startswith("text/"):
        return None  # inlined as synthetic text when the prompt was stored
    name = part.filename or part.url
    return {"type": "text", "text": f"[Attached file {name} ({part.mime}) cannot be shown to the model]"}


def _assistant(msg: MessageWithParts, media_in_tool_results: bool) -> list[Message]:
    info = msg.info
    assert isinstance(info, AssistantMessage)
    texts = [p.text for p in msg.parts if isinstance(p, TextPart) and p.text and not p.ignored]
    tools = [p for p in msg.parts if isinstance(p, ToolPart)]
    if info.error is not None and not texts and not tools:
        return []  # a failed step with nothing to show would only confuse the model
    if not texts and not tools:
        return []
    message: Message = {"role": "assistant", "content": "".join(texts) or None}
    thinking = _thinking_blocks(msg)
    if thinking:
        message["thinking_blocks"] = thinking
    elif unsigned := "".join(p.text for p in msg.parts if isinstance(p, ReasoningPart) and not p.metadata):
        # Other providers' reasoning: core.llm sends it back or drops it by the provider's rule.
        message["reasoning_content"] = unsigned
    if tools:
        message["tool_calls"] = [
            {
                "id": part.callID,
                "type": "function",
                "function": {"name": part.tool, "arguments": json.dumps(part.state.input)},
            }
            for part in tools
        ]
    out = [message]
    media: list[dict[str, Any]] = []
    for part in tools:
        result, images = _tool_result(part)
        if images and media_in_tool_results:
            content: Any = [{"type": "text", "text": result}, *images]
        else:
            content = result
            media.extend(images)
        out.append({"role": "tool", "tool_call_id": part.callID, "content": content})
    if media:
        out.append({"role": "user", "content": [{"type": "text", "text": TOOL_MEDIA_NOTE}, *media]})
    return out


def _thinking_blocks(msg: MessageWithParts) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in msg.parts:
        if not isinstance(part, ReasoningPart):
            continue
        meta = (part.metadata or {}).get("anthropic") or {}
        if meta.get("redacted_data"):
            blocks.append({"type": "redacted_thinking", "data": meta["redacted_data"]})
        elif meta.get("signature"):
            blocks.append({"type": "thinking", "thinking": part.text, "signature": meta["signature"]})
    return blocks


def _tool_result(part: ToolPart) -> tuple[str, list[dict[str, Any]]]:
    state = part.state
    if state.status == "completed":
        if state.time.compacted:
            return CLEARED, []
        images = [
            item
            for a in state.attachments or []
            if (a.mime.startswith("image/") or a.mime == "application/pdf") and (item := _file_content(a))
        ]
        return state.output, images
    if state.status == "error":
        return f"Error: {state.error}", []
    return INTERRUPTED, []
