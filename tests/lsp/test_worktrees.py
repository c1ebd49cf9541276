"""Worktree sessions started from an editor (issue 40), through the real server over stdio, real git
and the fake model: two sessions, each in a worktree of its own, edit the same file at once while the
user's checkout (and its uncommitted changes) stays untouched; both are listed with their worktree;
the first merges, the second's merge reports its conflict with the file, nothing lost; a merge over
the user's changes is refused with the files; discard removes worktree, branch and sessions (not
while a turn runs); a worktree is trusted as its checkout is; bad names and a folder outside git
are clear errors with nothing made."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.errors import BUSY, INVALID_PARAMS, NOT_FOUND
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri
from tests.lsp.test_protocol_results import SCHEMA, problems

ORIGINAL = "def add(a, b):\n    return a - b\n"


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def is_dir(path: Path) -> bool:
    return path.is_dir()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(ORIGINAL)
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "git", "config", "user.email", "u@example.com")
    sh(root, "git", "config", "user.name", "U")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "start")
    (root / "notes.txt").write_text("the user's own, uncommitted\n")
    return root


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def fix(new: str) -> tuple[Turn, Turn]:
    # A relative path: the agent's folder is its worktree.
    edit = {"filePath": "calc.py", "oldString": "return a - b", "newString": new}
    return Turn.tool_call("edit", edit), Turn.text("Fixed.")


async def call(plugin: Connected, method: str, params: Any) -> Any:
    """A request whose answer must be what the generated schema says."""
    answer = await plugin.call(method, params)
    assert not problems(SCHEMA["methods"][method]["result"], answer), (method, answer)
    return answer


async def refused(plugin: Connected, method: str, params: Any, code: int, said: str) -> None:
    """The request fails with ``code`` and a message that says ``said``."""
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call(method, params)
    assert caught.value.code == code and said in caught.value.message, caught.value


async def prompt(plugin: Connected, session_id: str, text: str) -> Any:
    parts = [{"type": "text", "text": text}]
    return await plugin.call("agent/session/prompt", {"sessionID": session_id, "parts": parts}, timeout=60)


async def two_sessions(plugin: Connected, model: FakeModelServer) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sessions in worktrees ``one`` and ``two``, each having changed calc.py its own way, at once."""
    one = await call(plugin, "agent/session/create", {"worktree": "one"})
    two = await call(plugin, "agent/session/create", {"worktree": "two", "title": "second"})
    model.script_for("task one", *fix("return a + b"))
    model.script_for("task two", *fix("return b + a"))
    await asyncio.gather(prompt(plugin, one["id"], "task one"), prompt(plugin, two["id"], "task two"))
    return one, two


async def test_two_worktree_sessions_edit_the_same_file_and_merge_back_with_a_conflict_reported(
    plugin: Connected, model: FakeModelServer, project: Path
) -> None:
    one, two = await two_sessions(plugin, model)
    path_one, path_two = Path(one["worktree"]["path"]), Path(two["worktree"]["path"])
    assert one["worktree"]["name"] == "one" and one["worktree"]["branch"] == "agentls/one"
    assert one["directory"] == str(path_one) and two["title"] == "second"
    assert (path_one / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (path_two / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    # The user's checkout is untouched, its uncommitted file too (and no worktree sees it).
    assert (project / "calc.py").read_text() == ORIGINAL
    assert (project / "notes.txt").read_text() == "the user's own, uncommitted\n"
    assert not (path_one / "notes.txt").exists()
    # Each session's review hunk is its own change, in its worktree's file.
    for session, folder, line in ((one, path_one, "a + b"), (two, path_two, "b + a")):
        hunks = (await plugin.call("agent/review/list", {"sessionID": session["id"]}))["hunks"]
        assert [(h["uri"], h["after"]) for h in hunks] == [
            (uri(folder / "calc.py"), [f"    return {line}\n"])
        ]
    # Listed with the checkout's sessions, each with its worktree.
    listed = (await call(plugin, "agent/session/list", {}))["sessions"]
    by_id = {s["id"]: s for s in listed}
    assert by_id[one["id"]]["worktree"]["name"] == "one" and by_id[two["id"]]["worktree"]["name"] == "two"
    worktrees = await call(plugin, "agent/worktree/list", {})
    assert worktrees["available"] is True and worktrees["reason"] is None
    rows = {w["name"]: w for w in worktrees["worktrees"]}
    assert rows["one"]["sessionIDs"] == [one["id"]] and rows["two"]["sessionIDs"] == [two["id"]]
    assert rows["one"]["changed"] == ["calc.py"] and rows["one"]["uncommitted"] == 1
    assert rows["one"]["merged"] is False and rows["one"]["missing"] is False
    diff = await call(plugin, "agent/worktree/diff", {"name": "one"})
    assert diff["files"] == ["calc.py"] and "+    return a + b" in diff["diff"]
    # Both merge back: the first cleanly, the second reports its conflict with the file.
    merged = await call(plugin, "agent/worktree/merge", {"name": "one", "how": "squash"})
    assert merged["outcome"] == "merged" and merged["files"] == ["calc.py"], merged
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    # Squashed, its branch is no ancestor of the checkout's, but nothing is left to merge.
    rows = {w["name"]: w for w in (await call(plugin, "agent/worktree/list", {}))["worktrees"]}
    assert rows["one"]["merged"] is True and rows["two"]["merged"] is False
    conflict = await call(plugin, "agent/worktree/merge", {"name": "two"})
    assert conflict["outcome"] == "conflict" and conflict["files"] == ["calc.py"], conflict
    assert "git merge --abort" in conflict["message"]
    assert "<<<<<<<" in (project / "calc.py").read_text()  # left for the user
    assert (path_two / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"  # nothing lost
    assert (project / "notes.txt").read_text() == "the user's own, uncommitted\n"
    sh(project, "git", "merge", "--abort")
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


async def test_a_worktree_session_goes_on_in_its_worktree_and_discard_removes_it_all(
    plugin: Connected, model: FakeModelServer, project: Path
) -> None:
    one, _ = await two_sessions(plugin, model)
    folder = Path(one["worktree"]["path"])
    # The next turn of the session runs in its worktree again (its bash's folder).
    # (Its requests go to the turns of its first prompt's text.)
    model.script_for("task one", Turn.tool_call("bash", {"command": "pwd > where.txt"}), Turn.text("Done."))
    await prompt(plugin, one["id"], "where are you")
    assert (folder / "where.txt").read_text().strip() == str(folder)
    assert not (project / "where.txt").exists()
    # Discard: the worktree, its branch and its session are gone; the other worktree stays.
    assert await call(plugin, "agent/worktree/discard", {"name": "one"}) == {}
    assert not is_dir(folder) and "agentls/one" not in sh(project, "git", "branch")
    listed = (await call(plugin, "agent/session/list", {}))["sessions"]
    assert one["id"] not in {s["id"] for s in listed}
    assert [w["name"] for w in (await call(plugin, "agent/worktree/list", {}))["worktrees"]] == ["two"]
    await refused(plugin, "agent/worktree/diff", {"name": "one"}, NOT_FOUND, "no worktree named 'one'")
    assert (project / "calc.py").read_text() == ORIGINAL


async def test_discard_is_refused_while_a_turn_of_its_session_runs(
    plugin: Connected, model: FakeModelServer, project: Path
) -> None:
    session = await call(plugin, "agent/session/create", {"worktree": "busy"})
    release = asyncio.Event()
    model.script(Turn.text("slow answer").slow_first_byte(release), Turn.text("A title"))
    turn = asyncio.create_task(prompt(plugin, session["id"], "take your time"))
    await plugin.editor.wait_for(
        lambda: any(
            e["properties"]["sessionID"] == session["id"] and e["properties"]["status"]["type"] == "busy"
            for e in plugin.events("session.status")
        )
    )
    said = f"while a turn of its session {session['id']} runs"
    await refused(plugin, "agent/worktree/discard", {"name": "busy"}, BUSY, said)
    await refused(plugin, "agent/worktree/merge", {"name": "busy"}, BUSY, said)
    assert is_dir(Path(session["worktree"]["path"]))
    release.set()
    await turn
    assert await call(plugin, "agent/worktree/discard", {"name": "busy"}) == {}


async def test_bad_names_are_refused_and_nothing_is_made(plugin: Connected, project: Path) -> None:
    await call(plugin, "agent/session/create", {"worktree": "taken"})
    before = sh(project, "git", "worktree", "list")
    for name, said in (
        ("taken", "exists already"),
        ("-dash", "not a usable worktree name"),
        ("a..b", "does not make a valid git branch name"),
        ("x" * 64, "at most 63"),
    ):
        await refused(plugin, "agent/session/create", {"worktree": name}, INVALID_PARAMS, said)
    # An unknown agent: found once the worktree is made, which is then removed again.
    await refused(
        plugin, "agent/session/create", {"worktree": "fresh", "agent": "nobody"}, NOT_FOUND, "nobody"
    )
    assert sh(project, "git", "worktree", "list") == before
    assert "agentls/fresh" not in sh(project, "git", "branch")
    names = [w["name"] for w in (await call(plugin, "agent/worktree/list", {}))["worktrees"]]
    assert names == ["taken"]
    await refused(plugin, "agent/worktree/merge", {"name": "nope"}, NOT_FOUND, "no worktree named 'nope'")
    await refused(plugin, "agent/worktree/merge", {"name": "taken", "how": "rebase"}, INVALID_PARAMS, "how")


async def test_an_open_buffer_of_a_worktree_file_gets_the_edit(
    plugin: Connected, model: FakeModelServer, project: Path
) -> None:
    session = await call(plugin, "agent/session/create", {"worktree": "open"})
    target = Path(session["worktree"]["path"]) / "calc.py"
    plugin.editor.open(target, ORIGINAL)
    model.script(*fix("return a * b"))
    await prompt(plugin, session["id"], "multiply")
    assert plugin.editor.buffers[uri(target)].text == "def add(a, b):\n    return a * b\n"
    assert target.read_text() == "def add(a, b):\n    return a * b\n"  # (a plugin saves agent edits)
    assert (project / "calc.py").read_text() == ORIGINAL


async def test_outside_git_the_worktrees_are_unavailable_with_the_reason(
    tmp_path: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    from tests.lsp.conftest import connect

    folder = tmp_path / "plain"
    folder.mkdir()
    async for plugin in connect(tmp_path, folder, "plugin", {"config": agent_config(model, title_model)}):
        listed = await call(plugin, "agent/worktree/list", {})
        assert listed["available"] is False and "not in a git repository" in listed["reason"]
        assert listed["worktrees"] == []
        await refused(
            plugin, "agent/session/create", {"worktree": ""}, INVALID_PARAMS, "not in a git repository"
        )
        assert (await call(plugin, "agent/session/list", {}))["sessions"] == []
        assert not (tmp_path / "data" / "worktrees").exists()


@pytest.mark.parametrize("untrusted", [True, False], ids=["untrusted", "trusted"])
async def test_a_worktree_is_trusted_as_the_checkout_is(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, untrusted: bool
) -> None:
    from tests.lsp.conftest import connect

    # The repository's own agent file: used in a trusted checkout only, and so in its worktrees.
    (project / ".agentls" / "agent").mkdir(parents=True)
    (project / ".agentls" / "agent" / "yolo.md").write_text("---\ndescription: from the repo\n---\nDo it.\n")
    sh(project, "git", "add", "-A")
    sh(project, "git", "commit", "-qm", "an agent")
    options = {"config": agent_config(model, title_model), "untrusted": untrusted}
    async for plugin in connect(tmp_path, project, "plugin", options):
        params = {"worktree": "repo-agent", "agent": "yolo"}
        if untrusted:
            await refused(plugin, "agent/session/create", params, NOT_FOUND, "yolo")
            assert "agentls/repo-agent" not in sh(project, "git", "branch")
        else:
            session = await call(plugin, "agent/session/create", params)
            assert session["worktree"]["name"] == "repo-agent"


async def test_a_merge_that_would_overwrite_the_user_s_changes_is_refused_with_the_files(
    plugin: Connected, model: FakeModelServer, project: Path
) -> None:
    session = await call(plugin, "agent/session/create", {"worktree": "mine"})
    model.script(*fix("return a + b"))
    await prompt(plugin, session["id"], "add")
    mine = "def add(a, b):\n    return 0  # the user's own, unsaved in git\n"
    (project / "calc.py").write_text(mine)
    merged = await call(plugin, "agent/worktree/merge", {"name": "mine"})
    assert merged["outcome"] == "refused" and merged["files"] == ["calc.py"], merged
    assert "git did not merge agentls/mine" in merged["message"]
    assert (project / "calc.py").read_text() == mine
