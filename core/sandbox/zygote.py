"""A process that starts the commands of one sandbox from inside it, so that a command costs a
``posix_spawn`` instead of a new bubblewrap (whose mount namespace set-up and tear-down cost more
than the command budget on a loaded machine).

agentls runs it inside ``bwrap`` (``zygotes.py``) with one end of a ``SOCK_SEQPACKET`` socket pair.
Each request is a JSON object ``{"id", "argv", "cwd", "env"}`` with the write end of the command's
output pipe attached (``SCM_RIGHTS``); the answer is ``{"id", "pid"}`` (or ``{"id", "error"}``) and,
when the command exits, ``{"exit": pid, "code": returncode}`` (minus the signal number when a
signal ended it, as ``subprocess`` says). Each command leads its own session and process group
(agentls kills the group, and its reaper watches it); stdin is ``/dev/null``. End of file on the
socket (agentls closed it or died) ends the zygote; its commands run on until their group is killed.

Run as a script (``python -I -S zygote.py FD``): only the standard library.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import threading

MAX_MESSAGE = 1 << 20


def _start(request: dict[str, object], out_fd: int) -> int:
    """Start the command with ``posix_spawn`` (no copy of the zygote's memory, unlike ``fork``),
    in the request's folder, leading a new session."""
    argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
    env = {str(k): str(v) for k, v in request["env"].items()}  # type: ignore[attr-defined]
    os.chdir(str(request["cwd"]))  # the child inherits it; the zygote has no other use for a folder
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, out_fd, 1),
        (os.POSIX_SPAWN_DUP2, out_fd, 2),
    ]
    return os.posix_spawnp(argv[0], argv, env, file_actions=actions, setsid=True)


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _copy(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    finally:
        source.close()


def _relay(listener: socket.socket, proxy_path: str) -> None:
    """Pass each connection to 127.0.0.1:PORT inside the sandbox on to agentls's proxy socket
    (threads: a slow download must not hold up the zygote's requests)."""
    while True:
        inside, _ = listener.accept()
        outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            outside.connect(proxy_path)
        except OSError:
            inside.close()
            outside.close()
            continue
        for source, sink in ((inside, outside), (outside, inside)):
            threading.Thread(target=_copy, args=(source.dup(), sink.dup()), daemon=True).start()
        inside.close()
        outside.close()


def serve(control: socket.socket, proxy_path: str | None = None) -> None:
    """Answer requests until the socket's end of file (relaying to ``proxy_path`` if given: the
    port is the first message)."""
    if proxy_path is not None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        control.send(json.dumps({"relay": listener.getsockname()[1]}).encode())
        threading.Thread(target=_relay, args=(listener, proxy_path), daemon=True).start()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # wakes the selector through wake_w
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    children: set[int] = set()
    while True:
        for key, _ in selector.select():
            if key.fileobj is control:
                message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, 1)
                if not message:
                    return
                for fd in fds:  # only the command it belongs to gets it, as its stdout and stderr
                    os.set_inheritable(fd, False)
                request = json.loads(message)
                try:
                    pid = _start(request, fds[0])
                    children.add(pid)
                    answer: dict[str, object] = {"id": request["id"], "pid": pid}
                except OSError as exc:
                    answer = {"id": request["id"], "error": str(exc)}
                finally:
                    for fd in fds:
                        os.close(fd)
                control.send(json.dumps(answer).encode())
            else:
                os.read(wake_r, 4096)
            for pid in list(children):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    children.discard(pid)
                    control.send(json.dumps({"exit": pid, "code": _returncode(status)}).encode())


if __name__ == "__main__":
    sock = socket.socket(fileno=int(sys.argv[1]))
    sock.set_inheritable(False)
    serve(sock, sys.argv[2] if len(sys.argv) > 2 else None)
