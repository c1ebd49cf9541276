"""The editor's process (initialize ``processId``), pinned so that its death cannot be missed.

Polling ``kill(pid, 0)`` from the ``initialize`` handler missed the editor's death (issue #43):
- the handler runs after pygls is imported, a second or more under load; an editor killed meanwhile
  was "no such process" by then, taken for a pid of another PID namespace and ignored for good;
- a pid reused by a new process after the editor died looked alive forever;
- a killed editor that its own parent had not reaped yet (a zombie) looked alive.

So the server pins the process with a pidfd (Linux ≥ 5.3), which names that one process whatever
happens to its pid, and becomes readable when it exits (zombie or not): its parent's at process
start, before anything is read (an editor normally starts the server itself), and a pid named in
``initialize`` as soon as the frame is read; until the event loop's watch takes over, a thread
waits on it, so an editor that dies while pygls loads ends the server at once. Where there are no
pidfds (macOS), the pid is polled, and a parent that was ours at start counts as gone once we are
someone else's child.

What no server can tell apart: an editor killed before the server process ran its first line
(its pid is gone and we were never its child, as far as we can see) from an editor in another PID
namespace. Both are ignored, with a line in the log; stdin's end still stops the server.

Only the standard library: the early ``initialize`` path (``handshake``) uses it before pygls loads.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

log = logging.getLogger(__name__)

# How often a process is polled where there is no pidfd: the server must be gone within ~2 s of it.
PARENT_POLL_S = 0.5


def _pidfd(pid: int) -> int | None:
    """A pidfd for ``pid``; None where pidfds do not exist; ProcessLookupError when it is not there."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except ProcessLookupError:
        raise
    except OSError:  # ENOSYS (an old kernel), EPERM under a seccomp filter: poll instead
        return None
    os.set_inheritable(fd, False)
    return fd


class Pinned:
    """One process to watch: ``fd`` (a pidfd, readable once it exits) or, without one, its pid."""

    def __init__(self, pid: int, fd: int | None, was_parent: bool) -> None:
        self.pid = pid
        self.fd = fd
        self.was_parent = was_parent

    def gone(self) -> bool:
        """Whether the process exited (checked without waiting)."""
        if self.fd is not None:
            import select  # here: only a watch that checks pays for it

            readable, _, _ = select.select([self.fd], [], [], 0)
            return bool(readable)
        if self.was_parent and os.getppid() != self.pid:
            return True  # we were re-parented: our parent (the editor) exited
        return not pid_alive(self.pid)

    def watch_start_up(self, on_gone: Callable[[], None], interval: float) -> Callable[[], None]:
        """Call ``on_gone()`` from a daemon thread if the process exits before the returned
        hand-over is called: the server's own watch runs on its event loop, which exists only once
        pygls is imported (seconds under load). The pidfd stays readable, so nothing is missed
        between the hand-over and that watch."""
        import threading  # here: only a server that was given a processId pays for it

        handed = threading.Event()
        lock = threading.Lock()

        def wait() -> None:
            if self.fd is not None:
                import select

                select.select([self.fd], [], [])  # readable once it exits; the thread is a daemon
            else:
                while not self.gone():
                    if handed.wait(interval):
                        return
            with lock:
                if not handed.is_set():
                    on_gone()

        def hand_over() -> None:
            with lock:
                handed.set()

        threading.Thread(target=wait, name="agentls-editor-start-up", daemon=True).start()
        return hand_over


class EditorProcess:
    """The server's parent at start, and the process ``initialize`` names once it is known."""

    def __init__(self) -> None:
        self.parent = os.getppid()
        try:
            self._parent_fd = _pidfd(self.parent)
        except ProcessLookupError:  # the parent is already gone: pid 1 / a subreaper adopted us
            self._parent_fd = None
        self.pinned: Pinned | None = None

    def pin(self, pid: int) -> Pinned | None:
        """Pin ``pid`` (once: later calls return the first pin); None when no such process is
        visible here (an editor in another PID namespace: a container, flatpak)."""
        if self.pinned is not None and self.pinned.pid == pid:
            return self.pinned
        if pid == self.parent:
            self.pinned = Pinned(pid, self._parent_fd, was_parent=True)
            self._parent_fd = None
            return self.pinned
        try:
            fd = _pidfd(pid)
        except ProcessLookupError:
            return None
        if fd is None and not pid_alive(pid):
            return None
        self.pinned = Pinned(pid, fd, was_parent=False)
        return self.pinned


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie counts as alive until reaped)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: past what a pid_t holds
        return False
    except PermissionError:
        return True  # it exists, it just belongs to someone else
    return True
