"""Background shells with real processes: output read in pieces, only what is new; limits; killing
one or a deleted session's; unknown ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.bus import Bus
from core.errors import ToolError
from core.events import SessionDeleted
from core.message.models import Session, SessionTime
from core.tools import shells as shells_module
from core.tools.shells import MAX_PER_SESSION, BackgroundShells, Shell
from tests.ticks import until


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (a zombie waiting to be reaped does not)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


async def test_output_is_read_once_and_the_end_is_reported(tmp_path: Path) -> None:
    shells = BackgroundShells()
    command = "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two; exit 3"
    shell = await shells.start(command, tmp_path, "s1", None)
    await until(lambda: "one" in shell.last(100), "its first line")
    assert shell.read()[0] == "one\n" and shell.state == "running"
    (tmp_path / "go").touch()
    await until(lambda: shell.done, "the shell to end")
    assert shell.read() == ("two\n", 0, False)
    assert shell.read() == ("", 0, False)
    assert shell.state == "exited with code 3"


async def test_a_long_output_comes_in_pieces_and_what_the_cap_dropped_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell = Shell(id="shell_9", session_id="s", command="x", cwd=tmp_path, started_at=0)
    monkeypatch.setattr(shells_module, "KEEP_CHARS", 100)
    monkeypatch.setattr(shells_module, "READ_CHARS", 30)
    shell.feed(b"a" * 40)
    assert shell.read() == ("a" * 30, 0, True)
    shell.feed(b"b" * 200)  # beyond the cap: the oldest text goes
    new, missed, more = shell.read()
    assert missed > 0 and set(new) == {"b"} and more
    while more:
        _, _, more = shell.read()
    assert shell.read() == ("", 0, False)


async def test_a_session_runs_at_most_so_many_and_an_unknown_id_names_the_known(tmp_path: Path) -> None:
    shells = BackgroundShells()
    started = [await shells.start("sleep 60", tmp_path, "s1", None) for _ in range(MAX_PER_SESSION)]
    with pytest.raises(ToolError, match=f"already runs {MAX_PER_SESSION} background shells"):
        await shells.start("sleep 60", tmp_path, "s1", None)
    other = await shells.start("sleep 60", tmp_path, "s2", None)  # another session's count is its own
    with pytest.raises(
        ToolError, match=r"no background shell 'shell_99' in this session \(its shells: shell_1"
    ):
        shells.get("s1", "shell_99")
    with pytest.raises(ToolError, match="no background shell"):
        shells.get("s1", other.id)  # not another session's
    await shells.close()
    assert all(s.done for s in [*started, other])


async def test_kill_stops_the_whole_group(tmp_path: Path) -> None:
    shells = BackgroundShells()
    shell = await shells.start("sleep 60 & sleep 60; wait", tmp_path, "s1", None)
    assert shell.started is not None
    pid = shell.started.pid
    await shells.kill(shell)
    await until(lambda: shell.done, "the shell to end")
    await until(lambda: not group_alive(pid), "its process group to go")
    assert shell.state == "stopped (killed)"


async def test_a_deleted_session_s_shells_are_killed(tmp_path: Path) -> None:
    bus = Bus()
    shells = BackgroundShells(bus)
    shell = await shells.start("sleep 60", tmp_path, "ses_1", None)
    session = Session(
        id="ses_1", projectID="p", directory=str(tmp_path), title="t", time=SessionTime(created=0, updated=0)
    )
    bus.publish(SessionDeleted(info=session))
    await until(lambda: shell.done, "the shell to end")
    assert shells.of_session("ses_1") == []
