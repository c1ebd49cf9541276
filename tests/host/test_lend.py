"""What a front end lends the host (core/remote/lend.py) and how the host routes to it
(host/lenders.py, host/routed.py): the calls a host may make, file errors that keep their kind,
a front end that vanishes mid-call, which front end answers which file and query. Real
connections over a socket pair; the lent workspace is the disk's."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.editor import EditorLocation
from core.errors import InvalidInputError, ToolError
from core.open import open_agent
from core.remote.agent import RemoteAgent
from core.remote.connection import Connection, RemoteError
from core.remote.lend import Lend, calls
from core.trust import distrust, trust_all
from core.workspace import DiskWorkspace, EditContext
from host.lenders import Lender, Lenders
from host.routed import RoutedEditor, RoutedWorkspace


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("workspace.is_open", {"path": "/x"}),  # the host answers it from what it was told
        ("editor.supported", {}),
        ("workspace.__init__", {}),
        ("workspace._disk", {}),
        ("workspace.root", {}),
        ("prompt", {"session_id": "s"}),
        ("agent.close", {}),
        ("os.system", {"command": "true"}),
        ("editor.nope", {}),
        ("workspace.read_bytes", {"path": "/x", "mode": "w"}),  # an argument the method has not
        ("workspace.write_bytes", {"path": "/x", "data": 5, "ctx": {"label": "x"}}),  # not base64
        ("workspace.write_bytes", {"path": "/x", "data": "no*base64", "ctx": {"label": "x"}}),
        ("workspace.write_bytes", {"path": "/x", "data": None, "ctx": {"label": "x"}}),
        ("editor.hover", {"at": {"path": "/x", "line": "first"}}),
    ],
)
async def test_the_host_may_call_only_the_lent_protocols_own_async_methods(
    tmp_path: Path, call: str, args: dict[str, Any]
) -> None:
    lend = Lend(DiskWorkspace(tmp_path), None)
    with pytest.raises(InvalidInputError):
        await lend.serve(call, args)


def test_the_call_table_is_the_protocols_async_methods() -> None:
    assert {"workspace.read_bytes", "workspace.write_bytes", "workspace.delete", "workspace.stat"} <= calls()
    assert {"editor.definition", "editor.run_command", "editor.format"} <= calls()
    assert not {"workspace.is_open", "editor.supported"} & calls()


async def test_a_front_end_that_lends_no_editor_refuses_editor_calls(tmp_path: Path) -> None:
    lend = Lend(DiskWorkspace(tmp_path), None)
    with pytest.raises(InvalidInputError, match="lends no editor"):
        await lend.serve("editor.hover", {"at": {"path": str(tmp_path / "a.py"), "line": 0}})


class Pair:
    """A front end's connection serving ``lend`` and the host's lender on the other end."""

    def __init__(self, lend: Lend, name: str = "Neovim") -> None:
        self.lend = lend
        self.name = name

    async def __aenter__(self) -> Pair:
        host_sock, front_sock = socket.socketpair()
        front_r, front_w = await asyncio.open_connection(sock=front_sock)
        host_r, host_w = await asyncio.open_connection(sock=host_sock)

        async def serve(method: str, params: dict[str, Any]) -> Any:
            assert method == "lent"
            return await self.lend.serve(params["call"], params["args"])

        async def none(_method: str, _params: dict[str, Any]) -> Any:
            raise RemoteError(-32601, "no")

        self.front = Connection(front_r, front_w, serve, lambda _m, _p: None)
        self.host = Connection(host_r, host_w, none, lambda _m, _p: None)
        self.front.start()
        self.host.start()
        self.lender = Lender(self.name, self.host, "p1", self.lend.described())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.front.close()
        self.host.close()


async def test_file_errors_of_the_lent_workspace_keep_their_kind_in_the_host(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    async with Pair(Lend(DiskWorkspace(tmp_path), None)) as pair:
        with pytest.raises(FileNotFoundError):
            await pair.lender.call("workspace.read_bytes", path=tmp_path / "missing.py")
        with pytest.raises(IsADirectoryError):
            await pair.lender.call("workspace.read_bytes", path=tmp_path / "folder")
        await pair.lender.call(
            "workspace.write_bytes", path=tmp_path / "a.py", data=b"\x00bytes\n", ctx=EditContext(label="w")
        )
        assert (tmp_path / "a.py").read_bytes() == b"\x00bytes\n"
        stat = await pair.lender.call("workspace.stat", path=tmp_path / "a.py")
        assert stat.exists and stat.size == 7


class NoErrnoWorkspace(DiskWorkspace):
    """A front end's workspace that raises its file errors' kinds with no errno, as ACP's does."""

    async def read_bytes(self, path: Path) -> bytes:
        if path.name == "folder":
            raise IsADirectoryError(path)
        if path.name == "new.py":
            raise FileNotFoundError(path)
        raise OSError("the client could not read it")


async def test_a_file_error_raised_with_no_errno_keeps_its_kind_in_the_host(tmp_path: Path) -> None:
    async with Pair(Lend(NoErrnoWorkspace(tmp_path), None)) as pair:
        with pytest.raises(FileNotFoundError):  # the write tool's sign of a new file
            await pair.lender.call("workspace.read_bytes", path=tmp_path / "new.py")
        with pytest.raises(IsADirectoryError):
            await pair.lender.call("workspace.read_bytes", path=tmp_path / "folder")
        with pytest.raises(OSError, match="could not read it") as raised:
            await pair.lender.call("workspace.read_bytes", path=tmp_path / "there.py")
        assert type(raised.value) is OSError  # no kind to give it


class StuckWorkspace(DiskWorkspace):
    """A front end's workspace whose reads wait until the test lets them go."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reading = asyncio.Event()

    async def read_bytes(self, path: Path) -> bytes:
        self.reading.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_a_front_end_that_vanishes_mid_call_fails_the_call_with_a_tool_error(tmp_path: Path) -> None:
    workspace = StuckWorkspace(tmp_path)
    async with Pair(Lend(workspace, None), name="VS Code") as pair:
        call = asyncio.ensure_future(pair.lender.call("workspace.read_bytes", path=tmp_path / "a.py"))
        await asyncio.wait_for(workspace.reading.wait(), 10)
        pair.front.close()  # the editor's process is gone
        with pytest.raises(ToolError, match=r"VS Code, which was answering workspace\.read_bytes, went away"):
            await asyncio.wait_for(call, 10)


def lender(name: str, lent: dict[str, Any]) -> Lender:
    """A lender whose calls are never made (routing only)."""
    return Lender(name, Connection(asyncio.StreamReader(), None, _never, _ignore), "p1", lent)  # type: ignore[arg-type]


async def _never(_method: str, _params: dict[str, Any]) -> Any:
    raise AssertionError("not called")


def _ignore(_method: str, _params: dict[str, Any]) -> None:
    return None


@pytest.mark.parametrize(
    ("path", "query", "expected"),
    [
        ("/p/a.py", "definition", "VS Code"),  # open in both: the first to attach answers
        ("/p/b.py", "definition", "Neovim"),  # open in Neovim only
        ("/p/b.py", "hover", "VS Code"),  # Neovim has it open but does not answer hover
        ("/p/c.py", "definition", "VS Code"),  # open nowhere: the first that answers
        ("/p/c.py", "rename", None),  # nobody answers rename
    ],
)
async def test_a_file_and_its_queries_go_to_the_front_end_that_has_it_open(
    path: str, query: Any, expected: str | None
) -> None:
    lenders = Lenders()
    lenders.add(
        "vscode",
        lender("VS Code", {"workspace": True, "open": ["/p/a.py"], "supported": ["definition", "hover"]}),
    )
    lenders.add(
        "nvim",
        lender("Neovim", {"workspace": True, "open": ["/p/a.py", "/p/b.py"], "supported": ["definition"]}),
    )
    lenders.add("acp", lender("Zed", {"workspace": False, "open": ["/p/c.py"], "supported": []}))
    owner = lenders.owner(Path(path))
    assert (owner.name if owner else None) == {"/p/a.py": "VS Code", "/p/b.py": "Neovim", "/p/c.py": None}[
        path
    ]
    if expected is None:
        with pytest.raises(ToolError, match=f"no attached editor answers {query}"):
            lenders.editor(query, Path(path))
    else:
        assert lenders.editor(query, Path(path)).name == expected
    assert lenders.supported() == {"definition", "hover"}
    lenders.remove("vscode")  # it went away: its files go to the others or the disk
    assert lenders.owner(Path("/p/a.py")).name == "Neovim"  # type: ignore[union-attr]
    assert lenders.supported() == {"definition"}


async def test_with_no_front_end_lending_the_disk_answers_and_editor_calls_fail(tmp_path: Path) -> None:
    lenders = Lenders()
    workspace, editor = RoutedWorkspace(tmp_path, lenders), RoutedEditor(lenders)
    await workspace.write_bytes(tmp_path / "a.py", b"x = 1\n", EditContext(label="w"))
    assert await workspace.read_text(tmp_path / "a.py") == "x = 1\n"
    assert not workspace.is_open(tmp_path / "a.py")
    assert await workspace.wait_diagnostics(tmp_path / "a.py") == []
    assert editor.supported() == frozenset()
    with pytest.raises(ToolError, match="no attached editor answers hover"):
        await editor.hover(EditorLocation(tmp_path / "a.py", 0))
    for token in ("", "x:1", "7:", "99:token"):
        with pytest.raises(ToolError):
            await editor.run_command(token)


@pytest.fixture
def untrusted(project: Path) -> Iterator[None]:
    distrust(project)
    yield None
    trust_all()


async def test_a_project_this_editor_has_not_trusted_is_never_attached(
    untrusted: None, host: Any, project: Path, data_dir: Path
) -> None:
    notices: list[str] = []
    agent = await open_agent(project, data_dir=data_dir, host="attach", notice=notices.append)
    try:
        assert not isinstance(agent, RemoteAgent)
        assert notices == ["not attached to the host: this editor has not trusted the project"]
    finally:
        await agent.close()


@pytest.mark.parametrize(
    "described",
    [
        {},
        {"workspace": "yes", "open": "/p/a.py", "supported": "definition"},
        {"workspace": True, "open": [1, None, "a.py"], "supported": ["definition", "format;rm -rf /", 3]},
        {"workspace": True, "open": None, "supported": None, "turns": [], "terminal": 0},
    ],
)
async def test_a_front_ends_odd_description_lends_only_what_it_plainly_says(
    described: dict[str, Any],
) -> None:
    lent = lender("odd", described)
    assert lent.open == frozenset()  # only a list of absolute paths names open files
    assert lent.supported <= {"definition"}
    assert lent.turns is bool(described.get("turns")) and lent.terminal is bool(described.get("terminal"))
    lenders = Lenders()
    lenders.add("odd", lent)
    assert lenders.owner(Path("/p/a.py")) is None  # a string is not a list of open files
    assert lenders.terminal() is None  # not the turn's driver


async def test_a_call_cancelled_at_once_is_answered_and_returns_without_waiting_out_its_grace(
    tmp_path: Path,
) -> None:
    workspace = StuckWorkspace(tmp_path)
    async with Pair(Lend(workspace, None)) as pair:
        for _ in range(20):  # the request and its cancel often arrive in one read: before it ran
            call = asyncio.ensure_future(pair.lender.call("workspace.read_bytes", path=tmp_path / "a.py"))
            await asyncio.sleep(0)  # sent
            call.cancel()
            done, _ = await asyncio.wait([call], timeout=5)  # the grace is 10 s
            assert done and call.cancelled()
        assert not pair.front.closed.is_set() and not pair.host.closed.is_set()
