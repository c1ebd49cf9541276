"""`agentls sessions …` run as a real subprocess against a store in tmp_path."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.message.models import MessageError, MessageWithParts, Session
from core.storage import DB_NAME, Store
from tests.unit.storage import factories as f

AGENTLS = Path(__file__).resolve().parents[3] / ".venv" / "bin" / "agentls"


@dataclass
class Seeded:
    tree: Path
    data: Path
    old: Session
    new: Session
    child: Session
    messages: list[MessageWithParts]


def _run(seeded: Seeded, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTLS_DATA_DIR": str(seeded.data)}
    return subprocess.run(
        [str(AGENTLS), *args], cwd=seeded.tree, env=env, capture_output=True, text=True, timeout=60
    )


async def _seed(tmp_path: Path) -> Seeded:
    tree = tmp_path / "tree"
    tree.mkdir()
    data = tmp_path / "data"
    async with await Store.open(data / DB_NAME) as store:
        project = await store.ensure_project(tree)
        old = f.session(project.id, title="older work", updated=1_000)
        new = f.session(project.id, title="newer work", updated=2_000)
        child = f.session(project.id, parent_id=new.id, title="a subtask", updated=1_500)
        for s in (old, new, child):
            await store.insert_session(s)
        u = f.user(new.id)
        a = f.assistant(new.id, u.id).model_copy(
            update={"error": MessageError(name="api", message="overloaded")}
        )
        u_parts = [f.text(new.id, u.id, "please read a.py")]
        a_parts = [f.completed_tool(new.id, a.id), f.text(new.id, a.id, "a.py defines main()")]
        await store.upsert_message(u)
        await store.upsert_message(a)
        await store.upsert_parts(u_parts + a_parts)
    messages = [MessageWithParts(info=u, parts=u_parts), MessageWithParts(info=a, parts=a_parts)]
    return Seeded(tree, data, old, new, child, messages)


@pytest.fixture
def seeded(tmp_path: Path) -> Seeded:
    return asyncio.run(_seed(tmp_path))


def test_list_is_newest_first(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [seeded.new.id, seeded.child.id, seeded.old.id]
    assert lines[0].endswith("newer work")
    assert f"(child of {seeded.new.id})" in lines[1]

    as_json = _run(seeded, "sessions", "list", "--json", "--limit", "2")
    assert [s["id"] for s in json.loads(as_json.stdout)] == [seeded.new.id, seeded.child.id]


def test_list_of_another_directory_is_empty(seeded: Seeded, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    done = _run(seeded, "sessions", "-C", str(tmp_path / "elsewhere"), "list")
    assert done.returncode == 0 and done.stdout == ""
    assert "no sessions in" in done.stderr


def test_show_prints_the_transcript(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "show", seeded.new.id)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("newer work\n")
    assert (
        out.index("please read a.py")
        < out.index("[tool read completed] a.py")
        < out.index("a.py defines main()")
    )
    assert "[error api] overloaded" in out


def test_export_is_the_whole_session_as_json(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "export", seeded.new.id)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert Session.model_validate(document["info"]) == seeded.new
    assert [MessageWithParts.model_validate(m) for m in document["messages"]] == seeded.messages


def test_delete_removes_session_and_children(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "delete", seeded.new.id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"deleted {seeded.new.id} and 1 child session(s)"
    listed = _run(seeded, "sessions", "list").stdout.split()
    assert seeded.new.id not in listed and seeded.child.id not in listed and seeded.old.id in listed


@pytest.mark.parametrize("action", ["show", "export", "delete"])
def test_unknown_id_is_a_one_line_error(seeded: Seeded, action: str) -> None:
    done = _run(seeded, "sessions", action, "ses_doesnotexist")
    assert done.returncode == 1
    assert done.stderr == "agentls: session ses_doesnotexist not found\n"
    assert done.stdout == ""


def test_invalid_rows_are_reported_and_fail_the_command(seeded: Seeded) -> None:
    bad = seeded.messages[1].parts[0].id

    async def corrupt() -> None:
        async with await Store.open(seeded.data / DB_NAME) as store:
            await store._write("UPDATE parts SET body = json_remove(body, '$.tool') WHERE id = ?", (bad,))

    asyncio.run(corrupt())
    done = _run(seeded, "sessions", "export", seeded.new.id)
    assert done.returncode == 1
    assert f"parts row {bad} is invalid" in done.stderr and "Traceback" not in done.stderr
    document = json.loads(done.stdout)  # what could be read is still there
    assert [p["id"] for m in document["messages"] for p in m["parts"]] == [
        seeded.messages[0].parts[0].id,
        seeded.messages[1].parts[1].id,
    ]


def test_no_action_prints_usage(seeded: Seeded) -> None:
    done = _run(seeded, "sessions")
    assert done.returncode == 2
    assert "list" in done.stderr and "export" in done.stderr
