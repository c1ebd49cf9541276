"""One front end attached to the host: its hello, the projects it opened, its calls, its events.

The first request must be ``hello``: a front end of another protocol version, of another agentls
version (the host is then replaced when idle) or with another environment is refused with a
message saying which. A front end's call runs on as the agent's own task: when the front end
goes away its turn goes on (others may be watching it); when it cancels the call, the call is
cancelled as in-process (a prompt's turn is aborted).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.api import Layer, Reconfigured
from core.remote import codec
from core.remote.connection import CANCEL_GRACE_S, Connection, RemoteError
from core.remote.wire import (
    ENVIRONMENT_MISMATCH,
    HOST_REPLACED,
    NO_DIRECTORY,
    NOT_ATTACHED,
    PROTOCOL_MISMATCH,
    VERSION_MISMATCH,
)
from host import runs
from host.hub import Hub
from host.lenders import Lender, driving
from host.projects import Project
from host.views import differing, fill, make_view, own_agent, reconfigure

log = logging.getLogger(__name__)

# Answering one of these closes the dialog everywhere: the others learn who answered first.
_ANSWERS = {"dialogs.reply_permission", "dialogs.answer", "dialogs.dismiss", "dialogs.reply_plan"}


class FrontEnd:
    """One attached connection."""

    def __init__(
        self, hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, remote: bool = False
    ) -> None:
        self.hub = hub
        self.remote = remote  # over TCP (host/tcp_door.py): its own machine, its own environment
        self.conn = Connection(reader, writer, self._request, self._notified)
        self.name = ""
        self.control = False  # `agentls host status|stop`: no project, not listed among the clients
        self.listening: dict[str, Callable[[], None]] = {}

    async def serve(self, first: dict[str, Any] | None = None) -> None:
        """Serve the connection (``first``: its hello, already read) until it closes, then stop
        sending it events."""
        try:
            await self.conn.run(first)
        finally:
            for handle, stop in self.listening.items():
                stop()
                if (project := self.hub.projects.by_handle.get(handle)) is not None:
                    project.lenders.remove(self)
            self.listening.clear()
            self.hub.tell(self.hub.watchers.drop(self))
            self.hub.front_ends.discard(self)
            self.hub.changed.set()

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        if method == "hello":
            return self._hello(params)
        if self not in self.hub.front_ends:
            raise RemoteError(NOT_ATTACHED, "the first request must be hello")
        if method == "open":
            return await self._open(params)
        if method == "call":
            return await self._call(params)
        if method == "showing":
            return self._showing(params)
        if method == "run":  # `agentls run` relayed: the host runs its turn (host/runs.py)
            return await runs.run(self, params)
        if method == "status":
            return self.hub.status()
        if method == "stop":
            self.hub.stopping.set()
            return {"stopping": True}
        raise RemoteError(-32601, f"the host has no method {method!r}")

    def greet(self, params: dict[str, Any]) -> dict[str, Any]:
        """``hello``'s answer, or RemoteError (and the connection closed soon) when refused; a relay's
        hello is checked by the same rules (host/relays.py)."""
        return self._hello(params)

    def _hello(self, params: dict[str, Any]) -> dict[str, Any]:
        hub = self.hub
        protocol, version = params.get("protocol"), params.get("version")
        if protocol != hub.protocol:
            self._close_soon()
            raise RemoteError(
                PROTOCOL_MISMATCH,
                f"the host (agentls {hub.version}, pid {_pid()}) speaks protocol {hub.protocol}, this "
                f"front end protocol {protocol}: stop it with `agentls host stop` to use this agentls",
            )
        if params.get("control"):
            self.control = True
            self.name = str(params.get("client") or "control")
            hub.front_ends.add(self)
            return {"protocol": hub.protocol, "version": hub.version, "pid": _pid()}
        if version != hub.version and self.remote:
            # A front end on another machine cannot start this host's successor: refuse, stay.
            self._close_soon()
            raise RemoteError(
                VERSION_MISMATCH,
                f"the host runs agentls {hub.version}, this front end {version}: install the same "
                "version on both machines",
            )
        if version != hub.version:
            hub.replaced = True
            idle = not hub.busy()
            self._close_soon()
            if idle:
                hub.stopping.set()
            raise RemoteError(
                HOST_REPLACED,
                f"the host runs agentls {hub.version}, this front end {version}: the host "
                + ("stops now" if idle else "stops when its running work ends"),
            )
        # A remote front end's environment is its machine's: the host's agents use the host's own.
        if not self.remote and params.get("environment") != hub.environment:
            self._close_soon()
            raise RemoteError(
                ENVIRONMENT_MISMATCH,
                "the host was started with another environment (agentls's variables, API keys, "
                "proxies or home differ): its agents would not see this front end's settings",
            )
        if hub.replaced or hub.stopping.is_set():
            self._close_soon()
            raise RemoteError(HOST_REPLACED, "the host is stopping")
        self.name = str(params.get("client") or "a front end")
        hub.front_ends.add(self)
        hub.changed.set()
        return {"protocol": hub.protocol, "version": hub.version, "pid": _pid()}

    async def _open(self, params: dict[str, Any]) -> dict[str, Any]:
        directory = Path(str(params.get("directory", "")))
        if not directory.is_absolute():
            raise RemoteError(-32602, f"open needs an absolute directory, not {str(directory)!r}")
        if not await asyncio.to_thread(directory.is_dir):  # a front end on another machine: paths must match
            raise RemoteError(
                NO_DIRECTORY,
                f"the host (pid {_pid()}) cannot see the folder {directory}: the project must be at "
                "the same absolute path on the host's machine",
            )
        layers = [
            Layer(str(item["name"]), item["data"], Path(item["path"]) if item.get("path") else None)
            for item in params.get("layers", [])
        ]
        project = await self.hub.projects.open(directory, layers)
        view = await make_view(project.agent, layers)  # its own model, checked (host/views.py)
        if project.handle not in self.listening:
            self.listening[project.handle] = project.attach(self.conn, view)
        project.views[self.conn] = view
        lent = params.get("lend")
        if isinstance(lent, dict):
            project.lenders.add(self, Lender(self.name, self.conn, project.handle, lent))
        agent = project.agent
        return {
            "project": project.handle,
            "directory": str(agent.directory),
            "worktree": str(agent.worktree),
            "facts": project.facts_for(self.conn),
            "permissions": codec.dump_result(
                "dialogs.pending_permissions", agent.dialogs.pending_permissions()
            ),
            "questions": codec.dump_result("dialogs.pending_questions", agent.dialogs.pending_questions()),
            "plans": codec.dump_result("dialogs.pending_plans", agent.dialogs.pending_plans()),
            "queued": {sid: codec.dump_result("queued", agent.queued(sid)) for sid in project.queue_sessions},
            "busy": sorted(project.busy),
            "warnings": self._apart(project, layers),
        }

    def _apart(self, project: Project, layers: list[Layer]) -> list[str]:
        """A warning when front ends attached to another agent of the folder (other agent-wide
        settings) do not share this one's turns."""
        warnings = []
        for other in self.hub.projects.same_folder(project):
            names = [f.name for f in self.hub.front_ends if other.handle in f.listening and f is not self]
            if names and (keys := differing(layers, other.layers)):
                warnings.append(own_agent(keys, names))
        return warnings

    async def _reconfigure(self, project: Project, layers: list[Layer] | None) -> Reconfigured:
        """This front end's settings changed: its view does (and the agent, when it is alone on it)."""
        alone = not any(project.handle in f.listening for f in self.hub.front_ends if f is not self)
        result = await reconfigure(project, project.views[self.conn], layers, alone)
        self.hub.projects.rekey(project)
        return result

    def _showing(self, params: dict[str, Any]) -> dict[str, Any]:
        """``showing``: the sessions of a project this front end shows now (its chat, its ACP
        sessions); every front end showing one of them is told who else does."""
        handle = str(params.get("project"))
        sessions = params.get("sessions")
        if handle not in self.listening:
            raise RemoteError(NOT_ATTACHED, f"no project {handle!r} opened on this connection")
        if not isinstance(sessions, list) or not all(isinstance(s, str) and s for s in sessions):
            raise RemoteError(-32602, "showing needs sessions: a list of session ids")
        self.hub.tell(self.hub.watchers.show(self, handle, sessions))
        return {}

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        """``lent``: the front end's open documents (or its editor's queries) changed; ``run.stop``:
        a relayed `agentls run` got SIGINT/SIGTERM."""
        if method == "run.stop":
            runs.stop(self, params)
            return
        project = self.hub.projects.by_handle.get(str(params.get("project")))
        if method != "lent" or project is None or project.handle not in self.listening:
            return
        lender = project.lenders.get(self)
        if lender is not None:
            lender.update(params)

    async def _call(self, params: dict[str, Any]) -> Any:
        handle = str(params.get("project"))
        project = self.hub.projects.by_handle.get(handle)
        if project is None or handle not in self.listening:
            raise RemoteError(NOT_ATTACHED, f"no project {handle!r} opened on this connection")
        method = str(params.get("method"))
        args = codec.load_args(method, params.get("args") or {})
        if method == "reconfigure":
            return codec.dump_result(method, await self._reconfigure(project, args.get("layers")))
        args = fill(method, args, project.views.get(self.conn), project.agent)
        target: Any = project.agent.dialogs if method.startswith("dialogs.") else project.agent
        function = getattr(target, method.removeprefix("dialogs."))
        if method in _ANSWERS:
            self.hub.answered(str(args.get("request_id")), self.name)
            for other in self.hub.others(self, handle):
                other.conn.notify(
                    "answering", {"project": handle, "requestID": args.get("request_id"), "client": self.name}
                )
        if not inspect.iscoroutinefunction(function):
            return codec.dump_result(method, function(**args))
        # The call's tasks (a turn's) know who drives them: ACP lends the files and terminal of its turns.
        session = args.get("session_id")
        driving.set((self, session if isinstance(session, str) else None))
        call = asyncio.create_task(function(**args))
        self.hub.track(call)
        try:
            result = await asyncio.shield(call)
        except asyncio.CancelledError:
            if not self.conn.closed.is_set():  # the front end cancelled it; a vanished one did not
                call.cancel()
                # Answered once it has stopped (a prompt: its turn aborted), as in-process.
                await asyncio.wait([call], timeout=CANCEL_GRACE_S)
            raise
        return codec.dump_result(method, result)

    def _close_soon(self) -> None:
        asyncio.get_running_loop().call_soon(self.conn.close)


def _pid() -> int:
    return os.getpid()
