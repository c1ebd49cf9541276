"""What a tool asks permission for: the contract between tools and the permission service."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from core.record import record, struct


@struct
class Proposal:
    """The full text a tool proposes to write to a file. The user may accept an edited version of
    it (``agent/permission/reply`` with ``edited``): ``edited`` holds that text once the ask returns,
    and ``approved`` is True when the user accepted it in its dialog (not a rule, not another reply)."""

    text: str
    edited: str | None = None
    approved: bool = False

    @property
    def final(self) -> str:
        """What to write: the user's version when they edited the proposal, else the proposal."""
        return self.text if self.edited is None else self.edited


@record
class PermissionAsk:
    """One permission check.

    ``patterns`` are matched against the rules (e.g. a worktree-relative path, a bash command);
    ``always`` are the patterns that an "always" reply turns into allow rules (e.g. ``git status *``).
    """

    permission: str
    patterns: list[str]
    always: list[str] = field(default_factory=list)
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    proposal: Proposal | None = None  # an edit the user may change before accepting it
