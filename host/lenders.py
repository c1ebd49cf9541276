"""The front ends that lend a project's agent their workspace and editor, and the agent's side of it.

One ``Lenders`` per project: every attached front end that lent something at ``open`` (each with
its own open documents and its own editor capabilities). The project's agent is opened with a
``RoutedWorkspace``, a ``RoutedEditor`` and a ``RoutedBash`` over it: a file goes to the front end
that has it open (the first to attach, when several do), else to the front end whose call started
the turn when it serves its turns' files (ACP's ``fs/*``), else to the disk as in-process; an
editor query about a file goes to that file's front end when it answers the query, else to the
first that does; bash goes to the terminal of the front end whose call started the turn, when it
lent one. A front end that goes away mid-call fails that call with a ``ToolError`` the model can
act on, never a hang.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from core.editor import EDITOR_QUERIES, EditorQuery
from core.errors import ToolError
from core.remote import lend
from core.remote.connection import Connection, ConnectionLost, RemoteError

_ids = itertools.count(1)

# The front end whose call runs now and the session it names (``FrontEnd._call`` sets it; the
# agent's tasks, a turn's among them, inherit it): the turn's driver.
driving: ContextVar[tuple[object, str | None] | None] = ContextVar("host_driving", default=None)


def _key(path: Path | str) -> str:
    return os.path.abspath(path)


class Lender:
    """One front end's lent workspace and editor for one project, called over its connection."""

    def __init__(self, name: str, conn: Connection, project: str, described: dict[str, Any]) -> None:
        self.id = next(_ids)
        self.name = name
        self._conn = conn
        self._project = project
        self.workspace = False
        self.turns = False  # it serves every file of the turns it drives (ACP's fs/*)
        self.terminal = False  # it runs bash in its client's terminal
        self.open: frozenset[str] = frozenset()
        self.supported: frozenset[EditorQuery] = frozenset()
        self.update(described)

    def update(self, described: dict[str, Any]) -> None:
        """Take the front end's latest description (``open``'s ``lend``, a ``lent`` notification)."""
        self.workspace = bool(described.get("workspace"))
        self.turns = bool(described.get("turns"))
        self.terminal = bool(described.get("terminal"))
        opened = described.get("open")
        paths = opened if isinstance(opened, list) else []
        self.open = frozenset(_key(p) for p in paths if isinstance(p, str) and os.path.isabs(p))
        listed = described.get("supported")
        self.supported = frozenset(q for q in EDITOR_QUERIES if isinstance(listed, list) and q in listed)

    async def call(self, call: str, **args: Any) -> Any:
        """Ask the front end; ToolError when it goes away or fails, OSError for its file errors."""
        params = {"project": self._project, "call": call, "args": lend.dump_args(call, args)}
        if (driver := driving.get()) is not None and driver[1] is not None:
            params["session"] = driver[1]
        try:
            data = await self._conn.request("lent", params)
        except ConnectionLost:
            raise ToolError(
                f"{self.name}, which was answering {call}, went away during the call: what it did is "
                "unknown; read the file again (the disk now answers for the files it had open)"
            ) from None
        except RemoteError as exc:
            if (error := lend.os_error(exc)) is not None:
                raise error from None
            raise ToolError(f"{self.name} could not answer {call}: {exc}") from None
        return lend.load_result(call, data)


class Lenders:
    """The lenders of one project, in the order they attached."""

    def __init__(self) -> None:
        self._by_front: dict[object, Lender] = {}

    def add(self, front: object, lender: Lender) -> None:
        """Route to ``front``'s lender from now on (a second ``open`` of it replaces the first)."""
        self._by_front[front] = lender

    def get(self, front: object) -> Lender | None:
        """``front``'s lender, if it lent something."""
        return self._by_front.get(front)

    def remove(self, front: object) -> None:
        """``front`` went away: its files go to the disk, its queries to the others."""
        self._by_front.pop(front, None)

    def described(self) -> list[dict[str, Any]]:
        """For ``status``: who lends what (the files their editors have open, the queries they answer)."""
        return [
            {
                "client": lender.name,
                "workspace": lender.workspace,
                "open": sorted(lender.open),
                "supported": sorted(lender.supported),
                "turns": lender.turns,
                "terminal": lender.terminal,
            }
            for lender in self._by_front.values()
        ]

    def showing(self, path: Path) -> Lender | None:
        """The front end whose editor has ``path`` open."""
        key = _key(path)
        return next(
            (lender for lender in self._by_front.values() if lender.workspace and key in lender.open), None
        )

    def driver(self) -> Lender | None:
        """The lender whose call started the running turn, if it lent something."""
        driver = driving.get()
        return self._by_front.get(driver[0]) if driver is not None else None

    def owner(self, path: Path) -> Lender | None:
        """Who answers for ``path``: the editor that has it open, else the turn's driver when it
        serves its turns' files (None: the disk answers)."""
        if (showing := self.showing(path)) is not None:
            return showing
        driver = self.driver()
        return driver if driver is not None and driver.workspace and driver.turns else None

    def terminal(self) -> Lender | None:
        """The turn's driver when it lent a terminal (None: bash runs in the host)."""
        driver = self.driver()
        return driver if driver is not None and driver.terminal else None

    def supported(self) -> frozenset[EditorQuery]:
        """The queries some attached front end answers."""
        return frozenset().union(*(lender.supported for lender in self._by_front.values()))

    def editor(self, query: EditorQuery, path: Path | None = None) -> Lender:
        """Who answers ``query``: the front end that has ``path`` open, else the first that can."""
        owner = self.owner(path) if path is not None else None
        if owner is not None and query in owner.supported:
            return owner
        for lender in self._by_front.values():
            if query in lender.supported:
                return lender
        raise ToolError(f"no attached editor answers {query} now: use the other tools")

    def by_id(self, lender_id: int) -> Lender:
        """The lender that gave a code action's token (ToolError once it has gone away)."""
        for lender in self._by_front.values():
            if lender.id == lender_id:
                return lender
        raise ToolError("the editor that offered this code action went away: ask for the actions again")


def with_token(lender: Lender, action: Any) -> Any:
    """A resolved code action whose command's token names the lender that can run it."""
    if action is None or not action.token:
        return action
    return dataclasses.replace(action, token=f"{lender.id}:{action.token}")
