"""Run a shell command in its own process group, stream its output, kill the whole group on demand."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.llm.own_env import for_children
from core.llm.secrets import child_environment
from core.record import record
from core.sandbox.zygotes import START_TIMEOUT_S, ZygoteError, proxy_for, zygote_for
from core.tools.reaper import reaper
from core.tools.spawn import Spawned, spawn_child, spawn_in_zygote

if TYPE_CHECKING:
    from core.sandbox.blocked import Blocked
    from core.sandbox.proxy import AskHost
    from core.sandbox.sandbox import Confined, Sandbox

log = logging.getLogger(__name__)

KILL_GRACE_S = 0.3  # between SIGTERM and SIGKILL: short, because an abort must land within a second
DRAIN_S = 0.2  # after the shell exits, background children may hold the pipe open; don't wait on them
MEMORY_CAP = 8 * 1024 * 1024  # keep at most this much output in memory: the tail is what gets shown

Stop = Literal["exited", "timeout", "aborted"]


@record
class ProcessResult:
    """How a command ended and what it printed (stdout and stderr merged, in order)."""

    output: str
    exit_code: int | None
    stop: Stop
    dropped_bytes: int
    blocked: tuple[Blocked, ...] = ()  # what the sandbox refused, as the output tells it


class _Tail:
    """Decoded output with a memory cap that drops the oldest text first."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._chunks: list[str] = []
        self._size = 0
        self.dropped = 0

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        if not text:
            return
        self._chunks.append(text)
        self._size += len(text)
        if self._size > MEMORY_CAP:
            joined = "".join(self._chunks)
            keep = joined[-MEMORY_CAP // 2 :]
            self.dropped += len(joined) - len(keep)
            self._chunks, self._size = [keep], len(keep)

    def text(self) -> str:
        return "".join(self._chunks)

    def last(self, chars: int) -> str:
        return self.text()[-chars:]


def shell() -> list[str]:
    """``bash -c`` when bash exists, else POSIX ``sh -c``."""
    for candidate in ("/bin/bash", "/usr/bin/bash"):
        if os.access(candidate, os.X_OK):
            return [candidate, "-c"]
    return ["/bin/sh", "-c"]


async def run_command(
    command: str,
    *,
    cwd: Path,
    timeout_s: float,
    abort: asyncio.Event,
    on_output: Callable[[str], None] | None = None,
    throttle_s: float = 0.1,
    live_chars: int = 30_000,
    sandbox: Sandbox | None = None,
    session_id: str | None = None,
    ask_host: AskHost | None = None,
) -> ProcessResult:
    """Run ``command`` until it exits, times out or ``abort`` is set; report output as it comes.

    With a ``sandbox`` the shell runs confined by it (``session_id``: whose warning a fallback is);
    a host it connects to through the sandbox's proxy that is not on the allow-list is put to
    ``ask_host`` (None: refused)."""
    tail = _Tail()
    last_report = 0.0

    def on_data(data: bytes) -> None:
        nonlocal last_report
        tail.feed(data)
        now = time.monotonic()
        if on_output is not None and now - last_report >= throttle_s:
            last_report = now
            on_output(tail.last(live_chars))

    started = await start_command(
        command, cwd=cwd, on_data=on_data, sandbox=sandbox, session_id=session_id, ask_host=ask_host
    )
    spawned, pid, confined = started.spawned, started.pid, started.confined
    aborted = asyncio.create_task(abort.wait())
    stop: Stop = "exited"
    try:
        waiters: set[asyncio.Future[Any]] = {spawned.exited, aborted}
        done, _ = await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if spawned.exited not in done:
            stop = "aborted" if aborted in done else "timeout"
            await kill_group(pid, spawned.exited)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(spawned.eof), DRAIN_S)
    finally:
        aborted.cancel()
        if not spawned.exited.done():
            await kill_group(pid, spawned.exited)
        started.finish()
    tail.feed(b"", final=True)
    if on_output is not None:
        on_output(tail.last(live_chars))
    output = tail.text()
    blocked = tuple(confined.blocked(output)) if confined is not None and stop == "exited" else ()
    return ProcessResult(output, spawned.returncode(), stop, tail.dropped, blocked)


def _nothing() -> None:
    return None


class Started:
    """A command that was started in its own process group, watched by the reaper (so it dies with
    agentls, even under kill -9); ``finish`` once it ended, to let go of what it held."""

    def __init__(self, spawned: Spawned, confined: Confined | None, done_with: Callable[[], None]) -> None:
        self.spawned, self.confined, self._done_with = spawned, confined, done_with
        self.pid = spawned.pid

    def finish(self) -> None:
        reaper().forget(self.pid)
        self.spawned.close()
        self._done_with()


async def start_command(
    command: str,
    *,
    cwd: Path,
    on_data: Callable[[bytes], None],
    sandbox: Sandbox | None = None,
    session_id: str | None = None,
    ask_host: AskHost | None = None,
) -> Started:
    """Start ``command`` (``bash -c``) as ``run_command`` does, confined by ``sandbox``; its output
    (stdout and stderr merged) goes to ``on_data``."""
    # stdin is closed: a pager would hang. Provider keys agentls holds, and the variables it set for
    # its own libraries (tiktoken's folder), are not the command's business.
    env = {**for_children(child_environment(os.environ)), "PAGER": "cat", "GIT_PAGER": "cat"}
    argv = [*shell(), command]
    confined = sandbox.confine(argv, cwd, env, session_id=session_id) if sandbox is not None else None
    reaper().start()
    spawned, done_with = await _spawn(confined, argv, cwd, env, on_data, ask_host)
    reaper().watch(spawned.pid)  # the group is killed even if agentls is killed with -9
    return Started(spawned, confined, done_with)


async def _spawn(
    confined: Confined | None,
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    on_data: Callable[[bytes], None],
    ask_host: AskHost | None,
) -> tuple[Spawned, Callable[[], None]]:
    """Start the command: unconfined, by its sandbox's zygote (through the host proxy when the
    sandbox has no network), or in a sandbox of its own (when the zygote cannot start or died).
    Also what to call once it ended."""
    if confined is None:
        return await spawn_child(argv, cwd, env, on_data), _nothing
    policy = confined.policy
    if confined.zygote_prefix and policy is not None:
        proxy = None if policy.network else await proxy_for(policy.tmpdir)
        zygote = zygote_for(confined.zygote_prefix, confined.env, proxy.path if proxy else None)
        if zygote is not None:
            try:
                env = confined.env
                done_with = _nothing
                if proxy is not None:
                    port = await asyncio.wait_for(asyncio.shield(zygote.relay), START_TIMEOUT_S)
                    token = proxy.register(policy.hosts, ask_host)
                    env = {**env, **proxy_environment(token, port)}
                    done_with = functools.partial(proxy.forget, token)
                return await spawn_in_zygote(zygote, argv, cwd, env, on_data), done_with
            except (ZygoteError, TimeoutError, asyncio.CancelledError) as exc:
                if isinstance(exc, asyncio.CancelledError) and not zygote.relay.cancelled():
                    raise
                log.warning("the sandbox's zygote failed (%s): the command starts its own sandbox", exc)
    return await spawn_child(confined.argv, cwd, confined.env, on_data), _nothing


def proxy_environment(token: str, port: int) -> dict[str, str]:
    """The variables that send a command's HTTP(S) through the sandbox's proxy (the token names the
    command to the proxy); the sandbox's own loopback is reached directly."""
    url = f"http://agentls:{token}@127.0.0.1:{port}"
    local = "localhost,127.0.0.1,::1"
    return {
        "HTTP_PROXY": url,
        "HTTPS_PROXY": url,
        "http_proxy": url,
        "https_proxy": url,
        "NO_PROXY": local,
        "no_proxy": local,
    }


async def kill_group(pgid: int, exited: asyncio.Future[Any]) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left of it after a short grace."""
    if not _signal_group(pgid, signal.SIGTERM):
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)
    # Children may ignore SIGTERM or outlive the shell: finish the group off either way.
    _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True
