"""A command started with bash ``background: true`` is checked exactly as the same command run in
the foreground: every request it asks, wrappers seen through, writes of "read-only" commands and
secrets read by recursive searches included; refused, it never starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PermissionDeniedError
from core.permission.request import PermissionAsk
from core.tools.bash import BashTool
from core.tools.runner import run_tool
from core.tools.shells import BackgroundShells
from tests.unit.tools.harness import allow_all

# The command, and the requests beyond `bash` it must ask for (permission, first pattern).
ROWS: list[tuple[str, set[tuple[str, str]]]] = [
    ("env rm -f notes.txt", set()),
    ("nice -n 5 rm -f notes.txt", set()),
    ("timeout 5 rm -f notes.txt", set()),
    ("/bin/rm -f notes.txt", set()),
    ("nohup rm -f notes.txt", set()),
    ("sort -o sorted.txt notes.txt", {("edit", "sorted.txt")}),
    ("echo hi > out.txt", {("edit", "out.txt")}),
    ("sed -i s/a/b/ notes.txt", {("edit", "notes.txt")}),
    ("grep -r KEY .", {("read", ".env")}),
    ("grep -R KEY", {("read", ".env")}),
    ("rg KEY", set()),  # ripgrep skips hidden files such as .env unless told
    ("rg --hidden KEY", {("read", ".env")}),
    ("rg -uu KEY", {("read", ".env")}),
    ("cat .env", {("read", ".env")}),
    ("env cat .env", {("read", ".env")}),
]


def make_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("a\n")
    (root / ".env").write_text("KEY=secret\n")
    return root.resolve()


async def asked(command: str, root: Path, background: bool) -> list[tuple[str, tuple[str, ...]]]:
    """Every request the bash tool asks before it runs ``command`` in a fresh project at ``root``
    (each allowed; a background command is stopped afterwards)."""
    seen: list[tuple[str, tuple[str, ...]]] = []

    async def ask(request: PermissionAsk) -> None:
        seen.append((request.permission, tuple(request.patterns)))

    shells = BackgroundShells()
    ctx = allow_all(make_project(root / "project"), root / "data", shells=shells)
    ctx.ask = ask
    try:
        await run_tool(BashTool(), {"command": command, "background": background}, ctx)
    finally:
        await shells.close()
    return seen


@pytest.mark.parametrize(("command", "needs"), ROWS, ids=[row[0] for row in ROWS])
async def test_background_asks_what_the_foreground_asks(
    tmp_path: Path, command: str, needs: set[tuple[str, str]]
) -> None:
    foreground = await asked(command, tmp_path / "fg", background=False)
    background = await asked(command, tmp_path / "bg", background=True)
    assert background == foreground, command
    kinds = {(permission, patterns[0]) for permission, patterns in background if permission != "bash"}
    assert needs <= kinds, f"{command!r} asked {background}"
    assert any(permission == "bash" for permission, _ in background), background


@pytest.mark.parametrize("command", [row[0] for row in ROWS])
async def test_a_refused_background_command_never_starts(tmp_path: Path, command: str) -> None:
    project = make_project(tmp_path / "project")

    async def refuse(request: PermissionAsk) -> None:
        raise PermissionDeniedError(f"{request.permission} refused")

    shells = BackgroundShells()
    ctx = allow_all(project, tmp_path / "data", shells=shells)
    ctx.ask = refuse
    with pytest.raises(PermissionDeniedError):
        await run_tool(BashTool(), {"command": command, "background": True}, ctx)
    assert shells.listing("ses_test") == []
    assert (project / "notes.txt").read_text() == "a\n"
    await shells.close()
