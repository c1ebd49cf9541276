"""An interactive terminal editor in tmux, driven the way a user drives it: keys in, screen out.

Headless editors never show what a user meets: hit-enter prompts, W12, ``inputlist`` dialogs. Here
the editor runs in a real terminal (a detached tmux session); the test types with ``send-keys`` and
reads the screen with ``capture-pane``. Every screen read while waiting is kept in ``seen``, so a
test can assert that a prompt never appeared at any point, not only at the end. A wait reads the
screen again when the program writes to the terminal (``pipe-pane`` into a FIFO), not on a clock.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

# The longest a wait goes without reading the screen: a safety net for output that tmux drew
# before the FIFO said so (each wait still ends on its own deadline).
_RECHECK_S = 1.0


def tmux() -> str:
    """The tmux binary (Debian ``tmux``), or a clear error saying how to get it."""
    path = shutil.which("tmux")
    if path is None:
        raise RuntimeError("tmux is not installed: apt-get install -y tmux")
    return path


class Terminal:
    """One tmux session running one command; closed (killed) by ``close``."""

    def __init__(
        self, command: list[str], env: dict[str, str], cwd: Path, width: int = 120, height: int = 40
    ) -> None:
        self.name = f"agentls-{uuid.uuid4().hex[:10]}"
        self.seen: list[str] = []
        # A private server socket: the test's tmux never meets the user's (or another test's).
        self._socket = f"agentls-test-{self.name}"
        env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        # tmux 3.3 gives a new session the PATH of the client that makes it, whatever -e says: the
        # client gets the program's PATH too, so that a command the test put first on it is found.
        client = {**os.environ, "PATH": env["PATH"]} if "PATH" in env else None
        self._tmux(
            "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
            "-c", str(cwd), *env_args, *command, env=client,
        )  # fmt: skip
        # What the program writes to the terminal arrives here too: a wait wakes on it.
        self._dir = tempfile.mkdtemp(prefix="agentls-tmux-")
        fifo = os.path.join(self._dir, "output")
        os.mkfifo(fifo)
        self._output = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self._keep_open = os.open(fifo, os.O_WRONLY)  # so the FIFO never reads as ended between writers
        self._tmux("pipe-pane", "-O", "-t", self.name, f"cat > {fifo}")

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [tmux(), "-L", self._socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            env=env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        """What the terminal shows now (also kept in ``seen``)."""
        text = self._tmux("capture-pane", "-p", "-t", self.name)
        if not self.seen or self.seen[-1] != text:
            self.seen.append(text)
        return text

    def send(self, *keys: str, literal: bool = False) -> None:
        """Type ``keys``: tmux key names (``Enter``, ``Escape``, ``C-c``) or, ``literal``, plain text."""
        self._tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def type(self, text: str) -> None:
        """Type ``text`` character by character, as a user would."""
        self.send(text, literal=True)

    def wait(self, until: Callable[[str], bool], timeout: float, what: str) -> str:
        """Read the screen until ``until(screen)``; the screen, or an error showing the last one."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if until(text):
                return text
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"waited {timeout:.0f} s for {what}; the screen:\n{text}")
            self.until_output(remaining)

    def until_output(self, seconds: float) -> None:
        """Return when the program writes to the terminal, or after ``seconds`` (at most ``_RECHECK_S``)."""
        ready, _, _ = select.select([self._output], [], [], min(seconds, _RECHECK_S))
        if ready:
            self._drain()

    def _drain(self) -> None:
        try:
            while os.read(self._output, 65536):
                pass
        except BlockingIOError:
            pass  # all read: the next write wakes the wait again

    def wait_text(self, pattern: str, timeout: float = 30) -> str:
        """Wait until the screen matches the regular expression ``pattern``."""
        regex = re.compile(pattern)
        return self.wait(lambda s: regex.search(s) is not None, timeout, repr(pattern))

    def ever(self, pattern: str) -> list[str]:
        """Every screen seen so far that matched ``pattern``."""
        regex = re.compile(pattern)
        return [s for s in self.seen if regex.search(s)]

    def close(self) -> None:
        """Kill the session (and so the editor in it)."""
        try:
            self._tmux("kill-server")
        except RuntimeError:
            pass  # the command already exited and took the session with it
        for fd in (self._output, self._keep_open):
            os.close(fd)
        shutil.rmtree(self._dir, ignore_errors=True)
