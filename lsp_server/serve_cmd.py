"""``agentls serve``: run the language server on stdio (default) or TCP; logs never go to stdout."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agentls.boot import exit_now, startup_imports
from agentls.logs import configure_logging

if TYPE_CHECKING:
    from lsp_server.editor_process import EditorProcess
    from lsp_server.handshake import Early
    from lsp_server.relay import Fallback, Unrelayed
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the agentls command line."""
    parser = subparsers.add_parser("serve", help="run the agent as a language server")
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The serve options, shared with ``python -m lsp_server``."""
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (port 0: any)")
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="--tcp: the token clients must send; read from FILE (owner-only), or written there if absent",
    )
    parser.add_argument(
        "--token-env", metavar="NAME", help="--tcp: read the token from this environment variable"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="--tcp: allow an address beyond loopback (0.0.0.0, a LAN IP)",
    )
    parser.add_argument("--log-file", metavar="FILE", help="log here instead of stderr")
    parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING (default), ERROR")


def run(args: argparse.Namespace) -> int:
    """Serve until the client exits (stdio) or the process is stopped (TCP)."""
    configure_logging(args.log_file, args.log_level, chatty=("pygls",))  # pygls logs every message at INFO
    early = None
    hand_over: Callable[[], None] = _nothing
    if args.tcp:
        from core.errors import ConfigError
        from core.remote.tcp import check_host, split_address
        from lsp_server.tcp import load_token

        try:
            host, port = split_address(args.tcp, "--tcp")
            bind = check_host(host, args.allow_remote)
            token = load_token(args.token_file, args.token_env)
        except (ConfigError, OSError) as exc:
            print(f"agentls serve: {exc}", file=sys.stderr)
            return 2
    else:
        from lsp_server.relay import host_mode

        if (mode := host_mode()) is not None:  # attached: a byte relay to a session in the host
            import asyncio

            from lsp_server import relay

            relayed = asyncio.run(relay.serve("lsp", mode, f"agentls serve (pid {os.getpid()})"))
            if isinstance(relayed, int):
                exit_now(relayed)
                return relayed
            if isinstance(relayed, relay.Unrelayed):  # not the host's to serve: from the start, here
                return _serve_unrelayed(relayed)
            if relayed is not None:  # the host died and none is left: the session goes on here
                return _serve_replayed(relayed)
            # no host could be used, nothing was read: the server below, in this process, as before
        from lsp_server.editor_process import PARENT_POLL_S, EditorProcess
        from lsp_server.handshake import answer_early

        editor = EditorProcess()  # our parent, pinned before anything is read: see editor_process
        log.info("reading the client's first message (parent pid %d)", editor.parent)
        early = answer_early(sys.stdin.fileno(), _write_stdout, editor)  # before pygls: see handshake
        if editor.pinned is not None:
            hand_over = editor.pinned.watch_start_up(_editor_gone(editor.pinned.pid), PARENT_POLL_S)
        if early.body is not None:  # answered: the chat's first reads too, while pygls loads
            import asyncio  # (after the answer: ~30 ms of imports the editor need not wait for)

            code = asyncio.run(_serve_answered(early, editor, hand_over))
            exit_now(code)
            return code
    with startup_imports():  # pygls and lsprotocol build ~600 classes: no collections meanwhile
        from lsp_server.features import build_server
        from lsp_server.lifecycle import run_stdio

        server = build_server()
    if args.tcp:
        import asyncio

        from lsp_server.tcp import serve_tcp

        server.watch_parent = False
        code = asyncio.run(serve_tcp(server, bind, port, token))
    else:
        server.editor_process = editor
        hand_over()  # the server's own watch (lifecycle.watch_process) takes it from here
        code = run_stdio(server, early)
    exit_now(code)
    return code


def _serve_unrelayed(unrelayed: Unrelayed) -> int:
    """The in-process server from the editor's first message on: the host would not serve an
    editor that has not trusted the project (trust is per process, core/trust.py). Its agent
    attaches as a full server's does once trusted (``AGENTLS_HOST``), never while held back."""
    from lsp_server.editor_process import EditorProcess
    from lsp_server.handshake import Early

    with startup_imports():
        from lsp_server.features import build_server
        from lsp_server.lifecycle import run_stdio

        server = build_server()
    server.editor_process = EditorProcess()
    code = run_stdio(server, Early(pending=unrelayed.pending))
    exit_now(code)
    return code


def _serve_replayed(fallback: Fallback) -> int:
    """The in-process server, handed the editor's session the relay rebuilt: its ``initialize``
    (whose answer the editor already has: the server's is dropped), then what brings it to the
    editor's state (open documents with their current text, configuration, shown sessions)."""
    from lsp_server.editor_process import EditorProcess
    from lsp_server.handshake import Early

    with startup_imports():
        from lsp_server.features import build_server
        from lsp_server.lifecycle import run_stdio

        server = build_server()
    server.editor_process = EditorProcess()
    os.environ["AGENTLS_HOST"] = "never"  # no host is left to attach to: the relay said so once
    early = Early(fallback.pending, fallback.initialize, fallback.msg_id, fallback.answer)
    code = run_stdio(server, early)
    exit_now(code)
    return code


def _nothing() -> None:
    pass


async def _serve_answered(early: Early, editor: EditorProcess, hand_over: Callable[[], None]) -> int:
    """Serve on stdio after ``initialize`` was answered early: the session reads are answered from
    the store (early_reads) while pygls is imported and the server built on a thread, then the
    server takes over the stream."""
    import asyncio  # (already loaded: asyncio.run is running this)

    with startup_imports():  # pygls and lsprotocol build ~600 classes: no collections meanwhile
        from lsp_server.early_reads import EarlyReads

        reads = EarlyReads(early, _write_stdout)
        await reads.start(sys.stdin.buffer, early.pending)
        await reads.opened()  # the project first: both import on one GIL
        server = await asyncio.to_thread(_build_server)
    server.editor_process = editor
    hand_over()  # the server's own watch (lifecycle.watch_process) takes it from here
    await reads.stop()
    from lsp_server.lifecycle import serve_stdio

    return await serve_stdio(server, sys.stdin.buffer, sys.stdout.buffer, early, reads)


def _build_server() -> AgentServer:
    from lsp_server.features import build_server

    return build_server()


def _editor_gone(pid: int) -> Callable[[], None]:
    def stop() -> None:  # nothing is open yet (no agent, no store, no child): nothing to close
        log.info("stopping: the editor process %d is gone (while the server started)", pid)
        exit_now(0)

    return stop


def _write_stdout(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lsp_server [--tcp HOST:PORT] [--log-file F] [--log-level L]``."""
    parser = argparse.ArgumentParser(prog="agentls serve")
    add_arguments(parser)
    return run(parser.parse_args(argv))
