"""What a search of the stored sessions asks for and finds (``Agent.search_sessions``)."""

from __future__ import annotations

from dataclasses import field

from core.message.models import Session
from core.record import record


@record
class SearchFilter:
    """Which sessions a search looks at: a project's, updated in [since, until) (ms), that ran an agent."""

    project_id: str | None = None
    since: int | None = None
    until: int | None = None
    agent: str | None = None


@record
class SearchHit:
    """A session that matches, and its newest match: a text part, or its title when no part matches.

    ``highlights`` are [start, end) offsets of the matched terms in ``snippet``, in code points.
    """

    session: Session
    snippet: str
    highlights: list[tuple[int, int]] = field(default_factory=list)
    message_id: str | None = None
    part_id: str | None = None
