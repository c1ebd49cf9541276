"""What a wrapper runs (``core.permission.wrappers``, ``core.permission.launchers``)."""

from __future__ import annotations

from core.permission.command import Word
from core.record import record


@record
class Wrapped:
    """What a wrapper runs: the command's words, or a shell script, or nothing; ``unknown`` says
    what about it cannot be known before it runs (``chroot`` moves its paths): it is checked all
    the same, and the line asks."""

    words: list[Word]
    script: str | None = None
    unknown: str | None = None


@record
class Hidden:
    """A wrapper whose command cannot be told, and why."""

    reason: str
