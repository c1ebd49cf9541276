"""What a client may send as a prompt: validated at the edge, turned into stored parts by prompt()."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

MAX_INLINE_BYTES = 2_000_000  # a text file inlined into the prompt
MAX_MEDIA_BYTES = 10_000_000  # an image or PDF sent with the prompt (providers cap images near 5-20 MB)
IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class Position(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built at first use, like the rest of core.message

    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(BaseModel):
    model_config = ConfigDict(defer_build=True)

    start: Position
    end: Position


class TextInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    type: Literal["text"] = "text"
    text: str


class FileInput(BaseModel):
    """A file (or a range of it) the user attaches; text is inlined, images go as file parts.

    With ``data`` (base64) the client sends the content itself — an image pasted into the chat, a
    document that exists only in the editor — and ``path`` only names it; ``mime`` is then required.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)
    type: Literal["file"] = "file"
    path: str
    mime: str | None = None
    range: Range | None = None
    data: str | None = None


class AgentInput(BaseModel):
    """An ``@agent`` mention: hands the request to that subagent."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    type: Literal["agent"] = "agent"
    name: str


class ContextInput(BaseModel):
    """A resolved context item (``core.message.context_items``): ``text`` reaches the model verbatim."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    type: Literal["context"] = "context"
    kind: str = Field(min_length=1)
    label: str
    text: str = Field(min_length=1, max_length=MAX_INLINE_BYTES)


PromptInput = Annotated[TextInput | FileInput | AgentInput | ContextInput, Field(discriminator="type")]
PromptInputAdapter: TypeAdapter[list[TextInput | FileInput | AgentInput | ContextInput]] = TypeAdapter(
    list[PromptInput], config=ConfigDict(defer_build=True)
)

# What a prompt sent while a turn runs does (core/session/queue.py): joins the running turn at its
# next step, waits for it to end and runs as its own turn, or aborts it and runs next.
PromptMode = Literal["steer", "queue", "interrupt"]
PROMPT_MODES: tuple[PromptMode, ...] = ("steer", "queue", "interrupt")
