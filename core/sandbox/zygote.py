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


def serve(control: socket.socket) -> None:
    """Answer requests until the socket's end of file."""
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
    serve(sock)
