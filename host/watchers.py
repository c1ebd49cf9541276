"""Which front ends show which sessions, and who must be told when that changes.

Each front end says which sessions of a project it shows (``showing``: a chat view switched
session, an ACP client created or loaded one) and, when it goes away, shows none. Every front
end that shows a session is told who else shows it — the others' names, one per front end, as
``session.watchers`` — when it starts showing it and whenever that list changes. A session id is
one session whichever project handle a front end opened it through (two front ends with other
config layers open two agents of one folder, over one store). The bookkeeping is here, free of
connections, so its rules are tested on their own (tests/unit/host/test_watchers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

F = TypeVar("F", bound=Hashable)


@dataclass(frozen=True)
class Notice(Generic[F]):
    """Tell ``front`` (through its ``project``) that ``clients`` are the others showing ``session``."""

    front: F
    project: str
    session: str
    clients: list[str]


class Watchers(Generic[F]):
    """The sessions each front end shows, per project; ``name(front)`` is what others are told."""

    def __init__(self, name: Callable[[F], str]) -> None:
        self._name = name
        self._shown: dict[F, dict[str, frozenset[str]]] = {}  # front end → project → sessions
        self._order: dict[F, int] = {}  # first to show anything first: a stable order of names
        self._next = 0

    def show(self, front: F, project: str, sessions: Iterable[str]) -> list[Notice[F]]:
        """``front`` shows ``sessions`` of ``project`` now (and no other of that project)."""
        new = frozenset(sessions)
        projects = self._shown.setdefault(front, {})
        old = projects.get(project, frozenset())
        if new:
            projects[project] = new
            if front not in self._order:
                self._order[front] = self._next
                self._next += 1
        else:
            projects.pop(project, None)
        notices = self._changed(old ^ new, skip=front)
        # It learns who else shows what it started showing (also when no one does: its view starts empty).
        notices += [Notice(front, project, s, self.others(front, s)) for s in sorted(new - old)]
        return notices

    def drop(self, front: F) -> list[Notice[F]]:
        """``front`` went away: the others that showed its sessions are told."""
        projects = self._shown.pop(front, {})
        self._order.pop(front, None)
        return self._changed(frozenset().union(*projects.values()), skip=front)

    def others(self, front: F, session: str) -> list[str]:
        """The names of the other front ends that show ``session``."""
        return [self._name(other) for other, _ in self._showing(session) if other != front]

    def shows(self, front: F, project: str) -> frozenset[str]:
        """The sessions of ``project`` that ``front`` shows."""
        return self._shown.get(front, {}).get(project, frozenset())

    def _showing(self, session: str) -> list[tuple[F, str]]:
        """The front ends that show ``session``, each with the project it shows it through."""
        found = [
            (front, project)
            for front in sorted(self._shown, key=lambda front: self._order.get(front, 0))
            for project, sessions in self._shown[front].items()
            if session in sessions
        ]
        return list({front: (front, project) for front, project in found}.values())  # one per front end

    def _changed(self, sessions: Iterable[str], skip: F) -> list[Notice[F]]:
        """For each session whose watchers changed, a notice to each other front end showing it."""
        notices: list[Notice[F]] = []
        for session in sorted(sessions):
            for other, project in self._showing(session):
                if other != skip:
                    notices.append(Notice(other, project, session, self.others(other, session)))
        return notices
