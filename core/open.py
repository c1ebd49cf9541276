"""``open_agent``: the one call with which a front end gets an agent (``core.api.Agent``).

Cheap to import: the agent's module (litellm's routes, the store, tokenizers, every tool) is
imported on a thread when ``open_agent`` runs, so that a server answers ``initialize`` first and
its event loop keeps serving meanwhile. With ``host`` it is the agent of the per-user host
(``core.remote``): the same door, attached.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from core.api import Agent, Layer, SessionReads
    from core.app import OpenedAgent
    from core.editor import EditorIntelligence
    from core.project import OpenedProject
    from core.remote.agent import RemoteAgent
    from core.remote.tcp import TcpHost
    from core.tools.base import Tool
    from core.workspace import Workspace

ImportGuard = Callable[[], AbstractContextManager[object]]
# never: in this process; attach: the host's agent when a host runs; auto: start one when none does
HostMode = Literal["auto", "attach", "never"]


async def open_agent(
    directory: Path,
    *,
    workspace: Workspace | None = None,
    layers: Sequence[Layer] = (),
    data_dir: Path | None = None,
    warm: bool = False,
    tools: Sequence[Tool[Any]] = (),
    editor: EditorIntelligence | None = None,
    import_guard: ImportGuard = nullcontext,
    opened: OpenedProject | None = None,
    host: HostMode | TcpHost = "never",
    client: str = "agentls",
    notice: Callable[[str], None] | None = None,
    reattach: bool = False,
    host_gone: Callable[[str], Awaitable[None]] | None = None,
) -> Agent:
    """Open the agent of the project at ``directory``.

    ``workspace``: where tools read and write files (default: the disk); ``layers``: the host's
    config layers on top of the project's files; ``warm``: load now what the first prompt needs
    (for long-lived hosts); ``tools``: the host's own tools, replacing built-in ones of the same id
    (ACP's terminal-backed bash); ``editor``: the editor's language servers, which the editor
    tools ask (offered while ``editor.supported()`` names their query); ``import_guard``: wraps
    the agent's import (a fresh process pauses the garbage collector meanwhile); ``opened``: the
    project ``open_project`` opened with ``layers`` (a host that answered from its store while the
    agent loaded); ``host``: attach to the per-user host's agent (``client``: the name other front
    ends see). Whenever the host cannot be used the agent opens in-process, as without ``host``, and
    ``notice`` is told why (not when ``attach`` finds no host running: that is no failure).
    Attached, ``workspace`` and ``editor`` are lent to the host's agent, which calls them back
    for the files this front end's editor has open and the queries it answers; ``reattach``: when
    that host dies, start a new one and go on attached to it (core/remote/reattach.py); when none
    can be reached, ``host_gone`` is told why (the front end opens the agent in-process then).
    """
    if host != "never":
        attached = await _attached(
            directory,
            layers,
            data_dir,
            host,
            client,
            notice,
            tools=tools,
            import_guard=import_guard,
            lent=(workspace, editor),
            reattach=reattach,
            host_gone=host_gone,
        )
        if attached is not None:
            if opened is not None:  # the front end's early reads used its store: closed with the agent
                attached.on_close.append(opened.store.close)
            return attached
    open_app = await asyncio.to_thread(_opener, import_guard)
    opened_agent = await open_app(
        directory,
        workspace=workspace,
        config_layers=layers,
        data_dir=data_dir,
        warm=warm,
        tools=tools,
        editor=editor,
        opened=opened,
    )
    return opened_agent.agent


def host_mode(
    option: object, where: str, warn: Callable[[str], None], default: HostMode = "never"
) -> HostMode | TcpHost:
    """The host mode a front end was given: ``option`` (from ``where``, e.g. its initialization
    options), else ``AGENTLS_HOST``, else ``default``; ``tcp://HOST:PORT`` is a host over TCP; any
    other value is told to ``warn`` and read as ``never`` (the agent in this process)."""
    if option is None:
        option, where = os.environ.get("AGENTLS_HOST", default), "AGENTLS_HOST"
    modes: dict[object, HostMode] = {"auto": "auto", "attach": "attach", "never": "never"}
    if isinstance(option, str) and option in modes:
        return modes[option]
    if isinstance(option, str) and option.startswith("tcp://"):
        from core.errors import ConfigError
        from core.remote.tcp import parse_tcp_host

        try:
            return parse_tcp_host(option)
        except ConfigError as exc:
            warn(f"{where}: {exc}: the agent runs in this process")
            return "never"
    allowed = "auto, attach, never or tcp://HOST:PORT"
    warn(f"{where} must be {allowed}, not {option!r}: the agent runs in this process")
    return "never"


async def open_project(
    directory: Path, layers: Sequence[Layer] = (), data_dir: Path | None = None
) -> OpenedProject:
    """The project at ``directory`` with its store open and its config loaded and checked (a bad
    config raises here), for ``open_agent(opened=)`` and ``session_reader``: no agent yet. Its
    modules are imported on a thread, as the agent's are."""
    module = await asyncio.to_thread(importlib.import_module, "core.project")
    opened: OpenedProject = await module.open_project(directory, data_dir, layers)
    return opened


def session_reader(opened: OpenedProject) -> SessionReads:
    """The session reads answered from the store of a project ``open_project`` opened."""
    from core.session.reader import SessionReader  # loaded with the store

    return SessionReader(opened.store, opened.project_id)


async def _attached(
    directory: Path,
    layers: Sequence[Layer],
    data_dir: Path | None,
    host: HostMode | TcpHost,
    client: str,
    notice: Callable[[str], None] | None,
    tools: Sequence[Tool[Any]],
    import_guard: ImportGuard,
    lent: tuple[Workspace | None, EditorIntelligence | None],
    reattach: bool,
    host_gone: Callable[[str], Awaitable[None]] | None = None,
) -> RemoteAgent | None:
    """The host's agent of the project, or None (and why, to ``notice``) to open it here."""
    say = notice or (lambda _text: None)
    from core.trust import is_trusted

    if not is_trusted(directory):  # the host's agent would act on the files this editor holds back
        say("not attached to the host: this editor has not trusted the project")
        return None
    from core.remote.lend import LendsTerminal

    terminals = [tool.terminal for tool in tools if isinstance(tool, LendsTerminal)]
    if len(terminals) != len(tools) or len(terminals) > 1:  # the host routes one: bash in a terminal
        say("not attached to the host: it cannot run this front end's own tools")
        return None
    # The guard covers the first validations too: pydantic looks for plugins when it builds the
    # first schema, which the attach does (the front door's records, the host's answers).
    with import_guard():
        from core.config.paths import data_dir as default_data_dir
        from core.remote.attach import AttachError, NoHost, attach
        from core.remote.lend import Lend
        from core.remote.reattach import Reattach

        lend = Lend(*lent, terminals[0] if terminals else None)
        data = data_dir or default_data_dir()
        mode: HostMode = host if isinstance(host, str) else "attach"
        tcp = None if isinstance(host, str) else host
        try:
            agent = await attach(
                directory, layers=layers, data_dir=data, client=client, mode=mode, lend=lend, tcp=tcp
            )
        except NoHost:
            if host == "auto":
                say("not attached: the host did not start; the agent runs in this process")
            return None
        except AttachError as exc:
            say(f"not attached to the host ({exc}); the agent runs in this process")
            return None
    for warning in agent.warnings:  # its settings and the host's agents of the folder
        say(warning)
    if reattach:
        watch = Reattach(
            agent,
            directory,
            layers=layers,
            data_dir=data,
            client=client,
            lend=lend,
            fallback=host_gone,
            tcp=tcp,
        )
        watch.start()
    return agent


def _opener(import_guard: ImportGuard) -> Callable[..., Awaitable[OpenedAgent]]:
    with import_guard():
        from core.app import open_app
        from core.wiring import prepare_schemas

        prepare_schemas()  # needed before the first request anyway; here, off the event loop
    return open_app
