"""What the server knows about the connected client, and the options that adapt it to that client.

A plugin client announces ``capabilities.experimental.agent`` (``savesEdits`` when it saves every
document an agent edit touched). A stock client gets defaults by its ``clientInfo.name``: eglot's
requests time out after 10 s and block Emacs, so its commands answer at once; eglot ignores
``$/progress`` and keeps the log out of sight but shows ``window/showMessage`` in the echo area
without stopping the user, so the tool steps go there. Stock Neovim asks "Press ENTER" for every
``window/showMessage``, so its steps stay in ``$/progress`` and the log, and only the answer is a
message. A client that gives no name (eglot before 1.10 sends no ``clientInfo``) is treated like
eglot: answering at once never breaks a client. Every option can be set in ``initializationOptions`` or in
``workspace/didChangeConfiguration`` under ``agentls``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.editor import EditorQuery
from lsp_server.protocol import describe

log = logging.getLogger(__name__)

ToolLog = Literal["message", "log", "off"]

# Clients whose requests time out (eglot: 10 s, blocking Emacs meanwhile).
TIMES_OUT = ("eglot",)
# Clients that show neither $/progress nor window/logMessage, but show window/showMessage without
# stopping the user (eglot 1.9: the echo area). Stock Neovim is not one: each message is a hit-enter
# prompt there, and it fires LspProgress for the statusline.
STEPS_AS_MESSAGES = ("eglot", "emacs")
# Seconds within which nobody reads a dialog and answers it: a sooner answer was typed ahead.
READS_TYPEAHEAD = 0.6
# How long an editor query (go to definition, …) may take before the tool tells the model it failed.
EDITOR_TIMEOUT = 10.0


class ClientOptions(BaseModel):
    """The options a user can set for their client (all optional; unknown keys ignored)."""

    model_config = ConfigDict(extra="ignore")

    asyncCommands: bool | None = None
    toolLog: ToolLog | None = None
    dialogTimeout: float | None = Field(default=None, gt=0)
    dialogMinRead: float | None = Field(default=None, ge=0, le=5)
    editorTimeout: float | None = Field(default=None, gt=0, le=60)
    nextEdits: bool | None = None


@dataclass
class Connection:
    """The client currently connected: its kind, and the options in effect for it."""

    connected: bool = False
    plugin: bool = False  # announced experimental.agent: events and reply requests, not dialogs
    saves_edits: bool = False  # experimental.agent.savesEdits: it saves what an agent edit touched
    name: str = ""
    editor_queries: frozenset[EditorQuery] = frozenset()  # experimental.agent.editorQueries it answers
    trust_decided: bool = False  # it gave initializationOptions.untrusted: it asked the user itself
    initial: ClientOptions = field(default_factory=ClientOptions)
    settings: ClientOptions = field(default_factory=ClientOptions)

    def _is(self, names: tuple[str, ...]) -> bool:
        return not self.name or any(n in self.name.lower() for n in names)

    def _pick(self, key: str) -> Any:
        for layer in (self.settings, self.initial):  # didChangeConfiguration wins
            value = getattr(layer, key)
            if value is not None:
                return value
        return None

    @property
    def async_commands(self) -> bool:
        """Whether agentls.prompt/fix/explain answer at once and deliver the answer by showMessage."""
        value = self._pick("asyncCommands")
        return bool(value) if value is not None else self._is(TIMES_OUT)

    @property
    def tool_log(self) -> ToolLog:
        """Where a plain client's tool steps go: window/showMessage, window/logMessage, or nowhere."""
        value: ToolLog | None = self._pick("toolLog")
        if value is not None:
            return value
        return "message" if self._is(STEPS_AS_MESSAGES) else "log"

    @property
    def dialog_timeout(self) -> float | None:
        """Seconds after which an unanswered dialog counts as rejected (eglot drops a dismissed one)."""
        value: float | None = self._pick("dialogTimeout")
        if value is not None:
            return value
        return 300.0 if self._is(TIMES_OUT) else None

    @property
    def dialog_min_read(self) -> float:
        """Seconds within which an answer to a dialog was typed ahead, not read (0: take every answer).

        Stock Neovim's dialog is ``inputlist()``, which reads keys typed before it appeared.
        """
        value: float | None = self._pick("dialogMinRead")
        if value is not None:
            return value
        named = self.name.lower()
        return READS_TYPEAHEAD if any(n in named for n in ("neovim", "nvim")) else 0.0

    @property
    def editor_timeout(self) -> float:
        """Seconds the server waits for an ``agent/editorQuery`` answer before the tool fails."""
        value: float | None = self._pick("editorTimeout")
        return value if value is not None else EDITOR_TIMEOUT

    @property
    def next_edits(self) -> bool:
        """Whether next edits are offered (``lsp_server.next_edits``): off unless the user set it."""
        return self._pick("nextEdits") is True


def agent_capability(capabilities: Any) -> dict[str, Any] | None:
    """``capabilities.experimental.agent`` when the client announced it (a plugin client)."""
    experimental = getattr(capabilities, "experimental", None)
    agent = experimental.get("agent") if isinstance(experimental, dict) else None
    return agent if isinstance(agent, dict) else None


def parse_options(data: Any, where: str, report: Callable[[str], None] | None = None) -> ClientOptions:
    """Client options from an untrusted object; bad values are left out and reported (logged, and
    given to ``report`` to show the user) with their key and what was expected."""
    if not isinstance(data, dict):
        if data is not None:
            _report(f"ignoring {where}: must be an object, not {type(data).__name__}", report)
        return ClientOptions()
    try:
        return ClientOptions.model_validate(data)
    except ValidationError as exc:
        _report(f"ignoring invalid {where}: {describe(exc)}", report)
        good = {}
        for key, value in data.items():
            try:
                ClientOptions.model_validate({key: value})
            except ValidationError:
                continue
            good[key] = value
        return ClientOptions.model_validate(good)


def _report(message: str, report: Callable[[str], None] | None) -> None:
    log.warning("%s", message)
    if report is not None:
        report(message)


def section(settings: Any) -> dict[str, Any] | None:
    """The ``agentls`` part of didChangeConfiguration settings (or the whole object if it has none)."""
    if not isinstance(settings, dict):
        return None
    inner = settings.get("agentls")
    return inner if isinstance(inner, dict) else None
