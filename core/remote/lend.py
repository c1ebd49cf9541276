"""What a front end lends the host's agent of its project, and how the host calls it back.

Only the front end has some things: the editor's buffers (a ``Workspace`` that reads unsaved text
and writes through ``workspace/applyEdit``), the editor's language servers (an
``EditorIntelligence``). An attached front end lends them with ``open``: the host's agent then
asks it over the same connection (a ``lent`` request, ``{project, call, args}``), for the files
it has open and the queries it answers (``host/lenders.py`` routes). The host answers the
synchronous questions (``is_open``, ``supported``) from what the front end last told it: the
``lend`` description at ``open``, and a ``lent`` notification whenever its open files change.

Both ends use the call table here: its arguments and results travel as JSON typed by the
``Workspace`` and ``EditorIntelligence`` protocols' own hints, as ``codec`` does for ``Agent``.
A file error of the front end's workspace travels with its errno and is raised again as that
``OSError`` in the host (a read of a missing file is a ``FileNotFoundError`` there too). One raised
with no errno (``FileNotFoundError(path)``, as ACP's workspace raises for a file its client cannot
read) travels with the errno of its kind: the host's tools tell a new file by that kind.
"""

from __future__ import annotations

import errno
import functools
import inspect
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, get_type_hints, runtime_checkable

from core.editor import EditorIntelligence
from core.errors import InvalidInputError
from core.remote import codec
from core.remote.connection import RemoteError
from core.remote.wire import OS_ERROR
from core.workspace import Workspace

if TYPE_CHECKING:  # the tools' modules load only when a terminal call arrives (``agentls run`` starts light)
    from core.tools.in_terminal import Terminal


@functools.cache
def _owners() -> dict[str, type]:
    from core.tools.in_terminal import Terminal

    return {"workspace": Workspace, "editor": EditorIntelligence, "terminal": Terminal}


_SYNCHRONOUS = frozenset({"is_open", "supported"})  # answered by the host from the description


@runtime_checkable
class OpenDocuments(Protocol):
    """A workspace that can say which files its editor shows, and when that changes."""

    def open_paths(self) -> Iterable[Path]:
        """The absolute paths of the documents the editor has open now."""
        ...

    def watch_open(self, changed: Callable[[], None]) -> None:
        """Call ``changed()`` after every document the editor opens or closes."""
        ...


@runtime_checkable
class SessionBound(Protocol):
    """A workspace (ACP's) that serves the turns of its own sessions: every file of such a turn goes
    through it, in the session the host names with each call."""

    def enter_session(self, session_id: str | None) -> None:
        """Serve the rest of this call in ``session_id`` (the session whose prompt started the turn)."""
        ...


@runtime_checkable
class LendsTerminal(Protocol):
    """A host tool (ACP's terminal-backed bash) whose terminal the host may use instead."""

    terminal: Terminal


@functools.cache
def calls() -> frozenset[str]:
    """The calls the host may make: ``workspace.<m>``, ``editor.<m>`` and ``terminal.<m>``, the
    protocols' async methods."""
    return frozenset(
        f"{prefix}.{name}"
        for prefix, owner in _owners().items()
        for name, member in inspect.getmembers(owner, inspect.isfunction)
        if not name.startswith("_") and name not in _SYNCHRONOUS
    )


@functools.cache
def _hints(call: str) -> dict[str, Any]:
    prefix, _, name = call.partition(".")
    return get_type_hints(getattr(_owners()[prefix], name))


def dump_args(call: str, args: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments as JSON data."""
    hints = _hints(call)
    return {name: codec.dump(hints[name], value) for name, value in args.items()}


def load_args(call: str, data: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments checked against its hints (an unknown call or argument is refused)."""
    if call not in calls():
        raise InvalidInputError(f"no such call of a lent workspace or editor: {call!r}")
    hints = _hints(call)
    unknown = set(data) - set(hints) - {"return"}
    if unknown:
        raise InvalidInputError(f"{call} takes no argument {', '.join(sorted(unknown))}")
    return {name: codec.load(hints[name], value) for name, value in data.items()}


def dump_result(call: str, value: Any) -> Any:
    """A call's result as JSON data."""
    return codec.dump(_hints(call)["return"], value)


def load_result(call: str, data: Any) -> Any:
    """A call's result back as its type."""
    return codec.load(_hints(call)["return"], data)


def os_error(error: RemoteError) -> OSError | None:
    """The file error a lent workspace raised, when ``error`` carries one."""
    if error.code != OS_ERROR:
        return None
    number = error.data.get("errno")
    return OSError(number, str(error)) if isinstance(number, int) else OSError(str(error))


class Lend:
    """What one front end lends for one project, served when the host calls back."""

    def __init__(
        self,
        workspace: Workspace | None,
        editor: EditorIntelligence | None,
        terminal: Terminal | None = None,
    ) -> None:
        self.workspace = workspace
        self.editor = editor
        self.terminal = terminal

    def __bool__(self) -> bool:
        return self.workspace is not None or self.editor is not None or self.terminal is not None

    def described(self) -> dict[str, Any]:
        """What the host needs to route and to answer ``is_open``/``supported`` itself."""
        opened: Iterable[Path] = ()
        if isinstance(self.workspace, OpenDocuments):
            opened = self.workspace.open_paths()
        return {
            "workspace": self.workspace is not None,
            "open": sorted(os.path.abspath(path) for path in opened),
            "supported": sorted(self.editor.supported()) if self.editor is not None else [],
            "turns": isinstance(self.workspace, SessionBound),
            "terminal": self.terminal is not None,
        }

    def watch(self, changed: Callable[[], None]) -> None:
        """Call ``changed()`` whenever the description changes (a document opened or closed)."""
        if isinstance(self.workspace, OpenDocuments):
            self.workspace.watch_open(changed)

    async def serve(self, call: str, data: dict[str, Any], session: str | None = None) -> Any:
        """Run one call of the host on what is lent (``session``: the session whose turn makes
        it); its result as JSON data."""
        args = load_args(call, data)
        prefix, _, name = call.partition(".")
        target = {"workspace": self.workspace, "editor": self.editor, "terminal": self.terminal}[prefix]
        if target is None:
            raise InvalidInputError(f"this front end lends no {prefix}")
        if isinstance(self.workspace, SessionBound):  # (each call is its own task: set for it alone)
            self.workspace.enter_session(session)
        try:
            result = await getattr(target, name)(**args)
        except OSError as exc:
            raise RemoteError(OS_ERROR, str(exc), {"errno": errno_of(exc)}) from None
        return dump_result(call, result)


# The kinds of OSError the workspace's callers tell apart, each with the errno Python maps to it.
_KIND_ERRNO: tuple[tuple[type[OSError], int], ...] = (
    (FileNotFoundError, errno.ENOENT),
    (IsADirectoryError, errno.EISDIR),
    (NotADirectoryError, errno.ENOTDIR),
    (FileExistsError, errno.EEXIST),
    (PermissionError, errno.EACCES),
)


def errno_of(exc: OSError) -> int | None:
    """The errno that raises ``exc``'s kind again: its own, else its subclass's (None for a bare OSError)."""
    if exc.errno is not None:
        return exc.errno
    return next((number for kind, number in _KIND_ERRNO if isinstance(exc, kind)), None)
