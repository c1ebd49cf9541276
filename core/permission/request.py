"""What a tool asks permission for: the contract between tools and the permission service."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
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
