"""Turning a client's prompt input into a stored user message with its parts."""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Sequence
from pathlib import Path

from core import ids
from core.errors import InvalidInputError
from core.message.models import (
    AgentPart,
    AnyPart,
    FilePart,
    FileSource,
    ModelRef,
    SubtaskPart,
    TextPart,
    UserMessage,
    UserTime,
    now_ms,
)
from core.message.prompt_input import (
    IMAGE_MIMES,
    MAX_INLINE_BYTES,
    MAX_MEDIA_BYTES,
    AgentInput,
    ContextInput,
    FileInput,
    TextInput,
)
from core.record import record
from core.tools.read import number_line, split_lines
from core.workspace import Workspace


@record
class PromptTarget:
    """Where the message goes and who answers it."""

    session_id: str
    agent: str
    model: ModelRef
    directory: Path
    worktree: Path
    system: str | None = None


def parse_model_ref(ref: str) -> ModelRef:
    """``provider/model`` → ModelRef (the model part may itself contain slashes)."""
    provider, sep, model = ref.partition("/")
    if not sep or not provider or not model:
        raise InvalidInputError(
            f"model {ref!r} must look like 'provider/model', e.g. 'anthropic/claude-sonnet-4-5'"
        )
    return ModelRef(providerID=provider, modelID=model)


async def build_user_message(
    target: PromptTarget,
    inputs: Sequence[TextInput | FileInput | AgentInput | ContextInput],
    workspace: Workspace,
    subagents: set[str],
) -> tuple[UserMessage, list[AnyPart]]:
    """The user message and its parts; files are read now so the message records what was sent."""
    info = UserMessage(
        id=ids.ascending("msg"),
        sessionID=target.session_id,
        time=UserTime(created=now_ms()),
        agent=target.agent,
        model=target.model,
        system=target.system,
    )
    parts: list[AnyPart] = []
    text = "\n".join(i.text for i in inputs if isinstance(i, TextInput))

    for item in inputs:
        if isinstance(item, TextInput):
            parts.append(TextPart(**_fields(info), text=item.text))
        elif isinstance(item, FileInput):
            parts.extend(await _file_parts(item, target, workspace, info))
        elif isinstance(item, ContextInput):
            # Sent verbatim: its size was counted and shown before sending (core.attach).
            context = {"kind": item.kind, "label": item.label}
            parts.append(
                TextPart(**_fields(info), text=item.text, synthetic=True, metadata={"context": context})
            )
        else:
            parts.append(AgentPart(**_fields(info), name=item.name))
            if item.name in subagents:
                # `@explore find X`: the loop hands the request to that subagent directly.
                parts.append(
                    SubtaskPart(
                        **_fields(info),
                        prompt=text or f"Help with the request addressed to @{item.name}.",
                        description=(text.splitlines() or [item.name])[0][:60],
                        agent=item.name,
                    )
                )
    if not parts:
        raise InvalidInputError("a prompt needs at least one part")
    return info, parts


def _inline_media(item: FileInput, info: UserMessage) -> FilePart:
    """An attachment whose content came with the prompt (base64): an image or a PDF."""
    mime = item.mime or mimetypes.guess_type(item.path)[0]
    if mime not in IMAGE_MIMES and mime != "application/pdf":
        raise InvalidInputError(
            f"inline attachment {item.path!r} has type {mime or 'unknown'}: inline content may be an "
            f"image ({', '.join(IMAGE_MIMES)}) or application/pdf; attach text files by path"
        )
    data = item.data or ""
    try:
        size = len(base64.b64decode(data, validate=True))
    except ValueError as exc:
        raise InvalidInputError(f"inline attachment {item.path!r} is not valid base64: {exc}") from None
    if size == 0:
        raise InvalidInputError(f"inline attachment {item.path!r} is empty")
    if size > MAX_MEDIA_BYTES:
        raise InvalidInputError(
            f"inline attachment {item.path!r} is {size:,} bytes; the limit is {MAX_MEDIA_BYTES:,}"
        )
    name = Path(item.path).name or item.path
    return FilePart(**_fields(info), mime=mime, filename=name, url=f"data:{mime};base64,{data}")


def _fields(info: UserMessage) -> dict[str, str]:
    return {"id": ids.ascending("prt"), "sessionID": info.sessionID, "messageID": info.id}


async def _file_parts(
    item: FileInput,
    target: PromptTarget,
    workspace: Workspace,
    info: UserMessage,
) -> list[AnyPart]:
    if item.data is not None:
        return [_inline_media(item, info)]
    path = Path(item.path)
    if not path.is_absolute():
        path = (target.directory / path).resolve()
    try:
        rel = str(path.relative_to(target.worktree))
    except ValueError:
        rel = str(path)
    mime = item.mime or mimetypes.guess_type(path.name)[0] or "text/plain"
    stat = await workspace.stat(path)
    if not stat.exists or stat.is_dir:
        raise InvalidInputError(f"attached file {item.path} does not exist or is a directory")
    media = mime in IMAGE_MIMES or mime == "application/pdf"  # sent as media (core.llm.media decides)
    limit = MAX_MEDIA_BYTES if media else MAX_INLINE_BYTES
    if stat.size > limit and not (workspace.is_open(path) and not media):
        raise InvalidInputError(f"attached file {item.path} is {stat.size:,} bytes; the limit is {limit:,}")
    url = path.as_uri()
    if media:
        data = await workspace.read_bytes(path)
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return [
            FilePart(**_fields(info), mime=mime, filename=path.name, url=url, source=FileSource(path=rel))
        ]
    content = await workspace.read_text(path)
    lines = split_lines(content)
    start, end = 0, len(lines)
    if item.range is not None:
        start = min(item.range.start.line, len(lines))
        end = min(max(item.range.end.line + 1, start + 1), len(lines))
    numbered = "\n".join(number_line(n, lines[n]) for n in range(start, end))
    header = f'<file path="{rel}" lines="{start + 1}-{end}">' if item.range else f'<file path="{rel}">'
    return [
        TextPart(**_fields(info), text=f"{header}\n{numbered}\n</file>", synthetic=True),
        FilePart(
            **_fields(info),
            mime="text/plain",
            filename=path.name,
            url=url,
            # Lines only for a range, so that a client can label it (calc.py:1-2) apart from a whole file.
            source=FileSource(path=rel, start=start + 1, end=end) if item.range else FileSource(path=rel),
        ),
    ]
