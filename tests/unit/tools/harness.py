"""Build real tool contexts over a temporary project, with a permission seam that records requests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.permission.request import PermissionAsk
from core.tools.context import ToolContext
from core.workspace import DiskWorkspace


@dataclass
class Recorder:
    """Records permission requests (allowing them all) and live updates."""

    asks: list[PermissionAsk] = field(default_factory=list)
    updates: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)

    async def ask(self, request: PermissionAsk) -> None:
        self.asks.append(request)

    def update(self, title: str | None, metadata: dict[str, Any]) -> None:
        self.updates.append((title, metadata))

    def kinds(self) -> list[str]:
        return [a.permission for a in self.asks]


def allow_all(project: Path, data_dir: Path, recorder: Recorder | None = None, **kw: Any) -> ToolContext:
    """A context whose permission seam allows everything (and records it when given a recorder)."""
    rec = recorder or Recorder()
    return ToolContext(
        session_id="ses_test",
        message_id="msg_test",
        call_id=kw.pop("call_id", "call_test"),
        agent="build",
        abort=kw.pop("abort", asyncio.Event()),
        workspace=DiskWorkspace(project),
        directory=kw.pop("directory", project),
        worktree=project,
        data_dir=data_dir,
        ask=rec.ask,
        update=rec.update,
        **kw,
    )


def text_of(path: Path | str) -> str:
    """A file's text (a plain function, so async tests stay free of blocking-call lint)."""
    return Path(path).read_text(encoding="utf-8")
