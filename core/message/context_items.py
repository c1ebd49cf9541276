"""Context items a user attaches to a prompt (``@folder``, ``@problems`` …), as a client names them.

The server turns each into the exact text the model sees (``core.attach``) and counts its tokens, so
a client can show the size before sending; the prompt then carries the resolved text
(``ContextInput`` in ``core.message.prompt_input``). Kinds the server reads itself name what to read
(a folder, a URL, a session); kinds only the editor knows (problems, terminal, symbol, the editor's
own state) carry the raw content the client gathered, which the server formats the same way.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from core.message.models import LAZY
from core.record import record

MAX_ITEM_CHARS = 400_000  # raw content a client may send for one item (about 100k tokens)
MAX_ITEMS = 20


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built at first use (start-up)


class FolderItem(_Item):
    kind: Literal["folder"]
    path: str = Field(min_length=1, description="absolute, or relative to the project")
    files: bool = False  # also the text of its files, until they take ``budget`` tokens
    budget: int = Field(default=8_000, ge=100, le=100_000)


class ChangesItem(_Item):
    kind: Literal["changes"]


class UrlItem(_Item):
    kind: Literal["url"]
    url: str = Field(min_length=1, max_length=4_000)
    timeout: float | None = Field(default=None, gt=0, le=120, description="seconds, as webfetch's")


class SessionItem(_Item):
    kind: Literal["session"]
    session: str = Field(min_length=1, description="the id of an earlier session")


class Problem(_Item):
    path: str = Field(min_length=1)
    line: int = Field(ge=0, description="0-based")
    column: int = Field(default=0, ge=0)
    severity: Literal["error", "warning", "information", "hint"] = "error"
    message: str = Field(max_length=10_000)
    source: str = ""


class ProblemsItem(_Item):
    kind: Literal["problems"]
    path: str | None = None  # the file they belong to; None: the whole workspace
    problems: list[Problem] = Field(max_length=2_000)


class TerminalItem(_Item):
    kind: Literal["terminal"]
    name: str = Field(default="terminal", max_length=200)
    text: str = Field(max_length=MAX_ITEM_CHARS)


class SymbolItem(_Item):
    kind: Literal["symbol"]
    name: str = Field(min_length=1, max_length=500)
    path: str = Field(min_length=1)
    line: int = Field(ge=0, description="0-based line where ``text`` starts")
    text: str = Field(max_length=MAX_ITEM_CHARS, description="the definition's text")
    symbolKind: str = Field(default="", max_length=50)


class Selection(_Item):
    startLine: int = Field(ge=0)
    endLine: int = Field(ge=0)
    text: str = Field(default="", max_length=MAX_ITEM_CHARS)


class EditorItem(_Item):
    """The automatic editor context: the active file, the cursor line and the selection."""

    kind: Literal["editor"]
    path: str = Field(min_length=1)
    line: int = Field(ge=0, description="0-based cursor line")
    selection: Selection | None = None


class McpResourceItem(_Item):
    """A resource of a running MCP server: by ``uri``, or a resource ``template`` with ``arguments``."""

    kind: Literal["mcp"]
    server: str | None = Field(default=None, description="None: the server that lists the URI")
    uri: str | None = Field(default=None, min_length=1, max_length=4_000)
    template: str | None = Field(default=None, min_length=1, max_length=4_000)
    arguments: dict[str, str] = Field(default_factory=dict, description="the template's variables")

    @model_validator(mode="after")
    def _one_of(self) -> McpResourceItem:
        if (self.uri is None) == (self.template is None):
            raise ValueError("give either uri or template (with its arguments)")
        if self.template is not None and self.server is None:
            raise ValueError("a template needs its server")
        return self


ContextItem = Annotated[
    FolderItem
    | ChangesItem
    | UrlItem
    | SessionItem
    | ProblemsItem
    | TerminalItem
    | SymbolItem
    | EditorItem
    | McpResourceItem,
    Field(discriminator="kind"),
]
ContextItemAdapter: TypeAdapter[
    FolderItem
    | ChangesItem
    | UrlItem
    | SessionItem
    | ProblemsItem
    | TerminalItem
    | SymbolItem
    | EditorItem
    | McpResourceItem
] = TypeAdapter(ContextItem, config=LAZY)
CONTEXT_KINDS = ("folder", "changes", "url", "session", "problems", "terminal", "symbol", "editor", "mcp")


@record
class ResolvedItem:
    """An item as the model will see it: ``text`` is sent verbatim, ``tokens`` is its count."""

    kind: str
    label: str
    text: str = ""
    tokens: int = 0
    error: str | None = None
