"""``Sandbox``: what the tools see of the OS sandbox. A tool hands it the program it would run and
gets back the program to run instead, its environment, and afterwards what the sandbox blocked;
how the confinement is done (bubblewrap, Seatbelt) is the backends' business.

Where no backend works, commands run confined by the permission rules alone: the sandbox says so
once (``notice``, an ``agent.warning`` in the app) and ``agentls doctor`` says why.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from core.config.schema import SandboxConfig
from core.record import record
from core.sandbox import bubblewrap, seatbelt
from core.sandbox.blocked import Blocked, find_blocked
from core.sandbox.detect import Backend, detect
from core.sandbox.env import sandbox_environment
from core.sandbox.policy import SandboxPolicy, build_policy

Notice = Callable[[str, str | None], None]  # (message, session id)

_tmp: Path | None = None


def private_tmp() -> Path:
    """The process's private temp dir for sandboxed commands (``TMPDIR``), removed at exit."""
    global _tmp
    if _tmp is None or not _tmp.is_dir():
        _tmp = Path(tempfile.mkdtemp(prefix="agentls-tmp-"))
        atexit.register(shutil.rmtree, _tmp, True)
        empty = _tmp.with_name(_tmp.name + ".empty")  # what a hidden file shows (bubblewrap.empty_file)
        empty.touch(mode=0o444)
        atexit.register(empty.unlink, True)
    return _tmp


@record
class Protection:
    """What protects the commands: the mode configured and the backend that enforces it."""

    mode: str
    backend: Backend

    @property
    def active(self) -> bool:
        """Whether an OS sandbox confines commands (not the case in full mode or without backend)."""
        return self.mode != "full" and self.backend.name is not None

    def describe(self) -> str:
        """One line for the user."""
        if self.mode == "full":
            return 'full mode: commands run without a sandbox (sandbox.mode is "full")'
        if self.backend.name is None:
            return f"rules alone: no OS sandbox can be set up here ({self.backend.detail})"
        return f"{self.mode} sandbox by {self.backend.name} ({self.backend.detail})"


@record
class Confined:
    """A command ready to spawn: its argv and environment, and the policy it runs under (None: none)."""

    argv: list[str]
    env: dict[str, str]
    policy: SandboxPolicy | None
    cwd: Path
    # The sandbox alone (bwrap's arguments without --chdir), for a zygote that starts commands in
    # it (``zygotes.py``); empty where there is none.
    zygote_prefix: tuple[str, ...] = ()

    def blocked(self, output: str) -> list[Blocked]:
        """What the sandbox refused, as ``output`` tells it."""
        return [] if self.policy is None else find_blocked(self.policy, output, self.cwd)


class Sandbox:
    """Confines the commands of one project by one ``sandbox`` config."""

    def __init__(
        self,
        config: SandboxConfig,
        project: Sequence[Path],
        notice: Notice,
        backend: Callable[[], Backend] = detect,
        confined_mcp: frozenset[str] = frozenset(),
    ) -> None:
        self.config, self._project, self.notice = config, tuple(project), notice
        self.confined_mcp = confined_mcp  # MCP servers confined whatever their "sandbox" says
        if config.mode != "full" and backend is detect:
            # The check runs bwrap once (~20 ms): done now on a thread, the first command finds it made.
            threading.Thread(target=detect, name="sandbox-check", daemon=True).start()
        self._backend = backend  # tests hand in a machine without a sandbox

    def protection(self) -> Protection:
        """The mode and the backend.

        The first check (~20 ms, once per process) runs on the caller's thread on purpose: a tool
        that awaited it elsewhere would ask its permissions after an abort it then misses."""
        backend = self._backend() if self.config.mode != "full" else Backend(None, "")
        return Protection(self.config.mode, backend)

    def confine(
        self,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        network: bool | None = None,
        session_id: str | None = None,
    ) -> Confined:
        """``argv`` as it runs under the policy; ``network`` overrides the config's (MCP servers)."""
        if self.config.mode == "full":
            return Confined(list(argv), dict(env), None, cwd)
        protection = self.protection()
        if not protection.active:
            self.notice(
                f"commands run without an OS sandbox, under the permission rules alone: "
                f"{protection.backend.detail}. `agentls doctor` shows what protects them.",
                session_id,
            )
            return Confined(list(argv), dict(env), None, cwd)
        policy = build_policy(self.config, self._project, private_tmp())
        if network is not None:
            policy = replace(policy, network=network)
        backend = protection.backend
        zygote_prefix: tuple[str, ...] = ()
        if backend.name == "bubblewrap" and backend.path is not None:
            prefix = bubblewrap.bwrap_argv(backend.path, policy, str(cwd))
            zygote_prefix = tuple(bubblewrap.bwrap_argv(backend.path, policy, None))
        else:
            prefix = seatbelt.seatbelt_argv(policy)
        sandbox_env = sandbox_environment(env, policy.env_pass, str(policy.tmpdir))
        return Confined([*prefix, *argv], sandbox_env, policy, cwd, zygote_prefix)


def once(notice: Notice) -> Notice:
    """``notice`` that speaks the first time only (a fallback is said once, not at every command)."""
    said = False

    def speak(message: str, session_id: str | None) -> None:
        nonlocal said
        if not said:
            said = True
            notice(message, session_id)

    return speak
