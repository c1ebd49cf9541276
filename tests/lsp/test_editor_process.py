"""The editor's process as the server pins it (lsp_server/editor_process.py), on real processes: a
pidfd or, where there is none, the pid polled; a pid that names nothing is not pinned."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator

import pytest

from lsp_server.editor_process import EditorProcess, Pinned
from lsp_server.lifecycle import Lifetime, watch_process


@pytest.fixture
def editor() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "1000"])
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize("with_pidfd", [True, False], ids=["pidfd", "polled"])
def test_a_pinned_process_is_gone_once_killed_even_before_it_is_reaped(
    editor: subprocess.Popen[bytes], with_pidfd: bool
) -> None:
    pinned = EditorProcess().pin(editor.pid)
    assert pinned is not None and (pinned.fd is not None) is True
    if not with_pidfd:
        pinned = Pinned(editor.pid, None, was_parent=False)
    assert not pinned.gone()
    editor.kill()
    if with_pidfd:  # a zombie (not reaped yet) is gone for the pidfd; polling sees it once reaped
        os.waitid(os.P_PID, editor.pid, os.WEXITED | os.WNOWAIT)
        assert pinned.gone()
    editor.wait()
    assert pinned.gone()


def test_a_pid_that_names_no_process_is_not_pinned() -> None:
    assert EditorProcess().pin(_dead_pid()) is None


def test_our_parent_is_pinned_at_start_and_a_second_pin_is_the_first() -> None:
    process = EditorProcess()
    assert process.parent == os.getppid()
    first = process.pin(os.getppid())
    assert first is not None and first.was_parent and not first.gone()
    assert process.pin(os.getppid()) is first


@pytest.mark.parametrize("with_pidfd", [True, False], ids=["pidfd", "polled"])
async def test_the_watch_stops_the_server_when_the_editor_dies(
    editor: subprocess.Popen[bytes], with_pidfd: bool
) -> None:
    pinned = EditorProcess().pin(editor.pid)
    assert pinned is not None
    if not with_pidfd:
        pinned = Pinned(editor.pid, None, was_parent=False)
    lifetime = Lifetime()
    watch = asyncio.ensure_future(watch_process(pinned, lifetime, interval=0.05))
    await asyncio.to_thread(editor.kill)
    await asyncio.to_thread(editor.wait)
    async with asyncio.timeout(5):
        await lifetime.stopped.wait()
    await watch
    assert lifetime.reason == f"the editor process {editor.pid} is gone"


async def test_the_watch_ends_quietly_when_the_server_stops_for_another_reason(
    editor: subprocess.Popen[bytes],
) -> None:
    pinned = EditorProcess().pin(editor.pid)
    assert pinned is not None
    lifetime = Lifetime()
    watch = asyncio.ensure_future(watch_process(pinned, lifetime))
    lifetime.stop("the client closed stdin")
    async with asyncio.timeout(5):
        await watch
    assert lifetime.reason == "the client closed stdin"


def test_the_start_up_watch_calls_back_only_before_the_hand_over(editor: subprocess.Popen[bytes]) -> None:
    pinned = EditorProcess().pin(editor.pid)
    assert pinned is not None
    called = []
    hand_over = pinned.watch_start_up(lambda: called.append(True), interval=0.05)
    hand_over()
    editor.kill()
    editor.wait()
    other = subprocess.Popen(["sleep", "1000"])
    try:
        second = EditorProcess().pin(other.pid)
        assert second is not None
        gone = asyncio.Event()
        loop = asyncio.new_event_loop()
        try:
            second.watch_start_up(lambda: loop.call_soon_threadsafe(gone.set), interval=0.05)
            other.kill()
            loop.run_until_complete(asyncio.wait_for(gone.wait(), 5))
        finally:
            loop.close()
    finally:
        other.wait()
    assert called == []
