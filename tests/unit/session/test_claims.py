"""Who may write a file while background sub-agents run (``core.session.claims``), as a table:
a tree of sessions — root ``P``, its foreground sub-agent ``pf``, background sub-agents ``A`` and
``B``, and ``A``'s foreground sub-agent ``af`` — and sequences of writes, each allowed or refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ToolError
from core.session.claims import FileClaims, Team
from core.workspace import DiskWorkspace, EditContext

PARENTS = {"pf": "P", "A": "P", "B": "P", "af": "A", "Q": None}
BACKGROUND = {"A", "B"}


class Tree:
    def __init__(self, running: set[str]) -> None:
        self.running = set(running)

    def writer_of(self, session: str) -> tuple[str, str]:
        writer, current = None, session
        while True:
            if writer is None and current in self.running:
                writer = current
            parent = PARENTS.get(current)
            if parent is None:
                return current, writer or current
            current = parent

    def running_in(self, root: str) -> list[str]:
        return [s for s in sorted(self.running) if self.writer_of(s)[0] == root]

    def claims(self) -> FileClaims:
        return FileClaims(Team(self.writer_of, self.running_in, lambda w: f"sub-agent {w}"))


F, G = Path("/p/f.py"), Path("/p/g.py")
OK, NO = True, False

CASES = [
    # (running background sub-agents, [(session, file, allowed)], what it shows)
    ({"A"}, [("A", F, OK), ("P", F, NO)], "the parent may not overwrite a running sub-agent's file"),
    ({"A"}, [("P", F, OK), ("A", F, NO)], "a sub-agent may not overwrite what the parent changed"),
    ({"A", "B"}, [("A", F, OK), ("B", F, NO), ("B", G, OK)], "two sub-agents: each its own files"),
    ({"A"}, [("A", F, OK), ("af", F, OK)], "a sub-agent's own foreground helper writes for it"),
    ({"A"}, [("pf", F, OK), ("A", F, NO)], "the parent's foreground helper writes for the parent"),
    ({"A"}, [("A", F, OK), ("A", F, OK), ("P", G, OK), ("P", G, OK)], "writing one's own file again"),
    (set(), [("P", F, OK), ("pf", F, OK)], "nothing runs in the background: no claims at all"),
    ({"A"}, [("A", F, OK), ("Q", F, OK)], "another session's tree is not the sub-agent's team"),
]


@pytest.mark.parametrize(("running", "writes", "why"), CASES, ids=[c[2] for c in CASES])
def test_writes(running: set[str], writes: list[tuple[str, Path, bool]], why: str) -> None:
    claims = Tree(running).claims()
    for session, path, allowed in writes:
        if allowed:
            claims.check(session, path)
        else:
            with pytest.raises(ToolError):
                claims.check(session, path)


def test_a_file_is_free_again_when_its_owner_ends() -> None:
    tree = Tree({"A", "B"})
    claims = tree.claims()
    claims.check("A", F)
    tree.running.discard("A")
    claims.release("A")
    claims.check("B", F)  # B may now take it
    with pytest.raises(ToolError):
        claims.check("P", F)  # and holds it against the parent


def test_when_the_last_one_ends_the_parent_writes_freely() -> None:
    tree = Tree({"A"})
    claims = tree.claims()
    claims.check("P", F)
    tree.running.clear()
    claims.release("A")
    claims.check("pf", F)
    claims.check("P", G)


@pytest.mark.parametrize(
    ("owner", "writer", "says"),
    [
        ("A", "P", "is being changed by sub-agent A, which runs in the background: leave this file"),
        ("P", "A", "was changed by the session that started you while you run in the background"),
        ("A", "B", "is being changed by sub-agent A, another background sub-agent"),
    ],
)
def test_the_refusal_says_who_holds_the_file_and_what_to_do(owner: str, writer: str, says: str) -> None:
    claims = Tree({"A", "B"}).claims()
    claims.check(owner, F)
    with pytest.raises(ToolError) as caught:
        claims.check(writer, F)
    assert says in str(caught.value)


async def test_a_refused_write_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("theirs\n")
    claims = Tree({"A"}).claims()
    workspace = claims.guard(DiskWorkspace(tmp_path))
    await workspace.write_bytes(path, b"A's\n", EditContext(label="edit", session_id="A"))
    with pytest.raises(ToolError):
        await workspace.write_bytes(path, b"parent's\n", EditContext(label="edit", session_id="P"))
    with pytest.raises(ToolError):
        await workspace.delete(path, EditContext(label="delete", session_id="P"))
    assert path.read_text() == "A's\n"
