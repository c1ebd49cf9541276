"""A finding of the agent's code review (``/review``), as the core hands it to clients.

Field names are the wire names (camelCase): findings travel unchanged in the answer of
``agent/session/command``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["high", "medium", "low"]


class Finding(BaseModel):
    """One problem the review found: the file (``file`` relative to the repository, ``path``
    absolute), its 1-based lines ``line``..``endLine``, how bad, and why. ``id`` is unique within
    one review."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    file: str
    path: str
    line: int
    endLine: int
    severity: Severity
    reason: str
