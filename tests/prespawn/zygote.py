"""The pre-imported spawner: ``python -m tests.prespawn.zygote SOCKET`` imports the agentls entry
points once, then forks a child per request from ``launch.py`` that runs ``python -m MODULE`` main
with the launcher's standard streams, argv, environment and working folder.

What the child gets before the module runs: the launcher's fds under their numbers (0, 1, 2 and any
``pass_fds``) and no other; its whole environment (``os.environ`` replaced: nothing the spawner
started with is left); its working folder (also first on ``sys.path``, as ``-m`` puts it); its
argv, and ``sys.orig_argv`` as a cold ``python -m MODULE ARGS`` has it. None of the modules imported
here reads the environment, the working folder, argv or the clock at import (tests/prespawn says
how that was checked), except the variables of ``IMPORT_TIME_ENV``; those and the ``PYTHON*``
variables an interpreter reads at start are compared with the spawner's own, and a request that
differs gets a cold process (the child ``exec``s ``python -m MODULE``). What a forked child still
shares with the spawner: the interpreter's options and hash seed, and its parent (the spawner).

The spawner stays single-threaded (a fork copies only the calling thread) and never configures
logging. It tells each launcher its child's pid (so that a spawner that dies takes none of its
children along unseen: each launcher then kills its child and exits 70), reports the child's end
as (0, exit status) or (1, signal), and kills the child when the launcher's connection closes first.
"""

from __future__ import annotations

import fcntl
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import struct
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

# What the agentls processes the tests start import on their way to serving: pygls and lsprotocol
# (~0.5 s of CPU), pydantic, the protocol modules, the core's wiring (core.app), the ACP SDK
# (acp_server.agent, ~0.9 s), the host. Imported once here, under agentls.boot.startup_imports as
# the commands import them (pydantic's plugins off, the garbage collector frozen after). Never
# litellm: it reads the environment and the network at import.
PRELOAD = (
    "lsp_server.serve_cmd",
    "lsp_server.handshake",
    "lsp_server.features",
    "lsp_server.lifecycle",
    "lsp_server.early_reads",
    "lsp_server.cli",
    "core.app",
    "acp_server.acp_cmd",
    "acp_server.agent",
    "cli.run_cmd",
    "host.server",
    "host.hub",
)
# Read at import by what PRELOAD brings in (besides the interpreter's own PYTHON* variables): a
# request whose value differs from the spawner's gets a cold process (``exec``) instead.
IMPORT_TIME_ENV = ("OTEL_PYTHON_CONTEXT",)
# The product's own packages (whose deferred pydantic models the spawner builds).
PACKAGES = ("core", "lsp_server", "acp_server", "host", "cli", "agentls")


@dataclass
class Child:
    pid: int
    pidfd: int
    conn: socket.socket
    launcher: int


@dataclass
class Request:
    module: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    launcher: int  # its pid (the peer's credentials on the socket)
    targets: list[int]  # the numbers the launcher had them under
    fds: list[int]


def preload() -> None:
    import importlib
    import tempfile

    from agentls.boot import startup_imports

    with startup_imports():
        for name in PRELOAD:
            importlib.import_module(name)
    build_deferred()
    # Nothing imported may have cached what the child's environment decides (TMPDIR here).
    assert tempfile.tempdir is None, "an import fixed tempfile.tempdir in the spawner"


def build_deferred(modules: Mapping[str, ModuleType] = sys.modules) -> None:
    """Build the pydantic models and type adapters of the product's modules that wait for their first
    use (``defer_build``: the config's sections, the prompt's parts): every process forked from here
    would otherwise build the same validators again in its first requests (in a profile of a forked
    ``agentls serve`` through tests/lsp/test_agent.py, ~210 of pydantic's schema steps per server).
    One that cannot be built yet (a name it refers to is not defined) stays deferred, as in a cold
    process, and is built at its first use."""
    from pydantic import BaseModel, TypeAdapter

    for name, module in list(modules.items()):
        if name.split(".")[0] not in PACKAGES:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == name:
                if not value.__pydantic_complete__:
                    value.model_rebuild(raise_errors=False)
            elif isinstance(value, TypeAdapter) and not value.pydantic_complete:
                value.rebuild(raise_errors=False)


def start_up_env(env: dict[str, str]) -> dict[str, str]:
    """The variables an interpreter reads at start or PRELOAD reads at import."""
    return {k: v for k, v in env.items() if k.startswith("PYTHON") or k in IMPORT_TIME_ENV}


def serve(path: str) -> Request | None:
    """Accept requests until stdin closes (the test run's end); in a forked child, return its request."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    children: dict[int, Child] = {}  # by pidfd and by connection fd
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 1024):
                    for child in {id(c): c for c in children.values()}.values():
                        _kill(child.pid, signal.SIGKILL)
                    return None
            elif key.data == "accept":
                conn, _ = listener.accept()
                request = _receive(conn)
                if request is None:
                    conn.close()
                    continue
                assert threading.active_count() == 1, "the spawner must fork with one thread"
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    conn.close()
                    for child in children.values():
                        child.conn.close()
                        _close(child.pidfd)
                    return request
                for fd in request.fds:
                    os.close(fd)
                child = Child(pid, os.pidfd_open(pid), conn, request.launcher)
                try:
                    conn.sendall(struct.pack("!i", pid))  # so that it can end the child if we die
                except OSError:
                    pass  # the launcher is gone: its EOF is read below and kills the child
                children[child.pidfd] = children[conn.fileno()] = child
                selector.register(child.pidfd, selectors.EVENT_READ, "exit")
                selector.register(conn, selectors.EVENT_READ, "conn")
            elif key.data == "exit":
                child = children.pop(key.fd)  # (its conn's events of this batch are skipped)
                children.pop(child.conn.fileno())
                selector.unregister(child.pidfd)
                if child.conn.fileno() in selector.get_map():
                    selector.unregister(child.conn)
                _, status = os.waitpid(child.pid, 0)
                os.close(child.pidfd)
                _remove(pid_file(path, child.launcher))
                if os.WIFSIGNALED(status):
                    report = struct.pack("!ii", 1, os.WTERMSIG(status))
                else:
                    report = struct.pack("!ii", 0, os.waitstatus_to_exitcode(status))
                try:
                    child.conn.sendall(report)
                except OSError:
                    pass  # the launcher is gone already
                child.conn.close()
            elif key.data == "conn":
                child = children.get(key.fd)
                if child is None or child.conn is not key.fileobj:
                    continue  # reaped earlier in this batch (its fd number may be a new child's now)
                try:
                    data = child.conn.recv(4)
                except OSError:
                    data = b""
                if len(data) == 4:  # a signal the launcher got, for the child
                    _kill(child.pid, struct.unpack("!i", data)[0])
                else:  # the launcher died: so does its child, at once (its exit is reaped above)
                    selector.unregister(child.conn)
                    _kill(child.pid, signal.SIGKILL)


def _receive(conn: socket.socket) -> Request | None:
    """The launcher's request: a 4-byte length sent with its fds, then that much JSON."""
    fds: list[int] = []
    try:
        header, fds, _, _ = socket.recv_fds(conn, 4, 64)
        while len(header) < 4 and (more := conn.recv(4 - len(header))):
            header += more
        size = struct.unpack("!I", header)[0] if len(header) == 4 else 0
        data = b""
        while len(data) < size and (more := conn.recv(size - len(data))):
            data += more
        message = json.loads(data) if size and len(data) == size else None
    except (OSError, ValueError):
        message = None
    if message is None or len(message["fds"]) != len(fds):
        for fd in fds:
            os.close(fd)
        return None
    pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return Request(
        message["module"], message["argv"], message["env"], message["cwd"], pid, message["fds"], fds
    )


def pid_file(path: str, launcher: int) -> str:
    """Where the child of launcher ``launcher`` writes its pid while it runs (``prespawn.own_pid``)."""
    return f"{path}.{launcher}"


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def become(request: Request, path: str) -> None:
    """In the forked child: take the launcher's streams, environment, folder and argv; say its pid
    before anything runs (so that it is there once the child has said anything)."""
    with open(pid_file(path, request.launcher), "w") as out:
        out.write(str(os.getpid()))
    top = max(request.targets) + 1
    moved = []
    for fd in request.fds:  # out of the way of the numbers they go to
        moved.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top))
        os.close(fd)
    for target, fd in zip(request.targets, moved, strict=True):
        os.dup2(fd, target)
    for name in os.listdir("/proc/self/fd"):  # nothing of the spawner's is left open
        if int(name) not in request.targets:
            _close(int(name))
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    sys.path[0] = request.cwd
    sys.argv = [request.module, *request.argv]
    # The command line as the interpreter got it (acp_server/auth_methods.py repeats it to the client).
    sys.orig_argv = [sys.executable, "-m", request.module, *request.argv]
    # ``-m`` runs the module as ``__main__`` only: a module the spawner imported runs afresh, as cold.
    sys.modules.pop(request.module, None)


def main() -> None:
    path = sys.argv[1]
    own = start_up_env(dict(os.environ))
    preload()
    request = serve(path)
    if request is None:  # the test process ended (an xdist worker may skip its atexit): clean up
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        return
    become(request, path)
    if start_up_env(request.env) != own:  # what the spawner imported would be wrong: start afresh
        os.execv(sys.executable, [sys.executable, "-m", request.module, *request.argv])
    runpy.run_module(request.module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
