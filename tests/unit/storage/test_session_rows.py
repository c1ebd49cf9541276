"""Sessions, todos and approvals in the store: ordering, paging, cascade delete, not-found errors."""

from __future__ import annotations

import pytest

from core.errors import NotFoundError, StorageError
from core.message.models import Todo
from core.storage import Project, Store
from tests.unit.storage import factories as f


async def test_session_round_trip_and_update(store: Store, project: Project) -> None:
    s = f.session(project.id, title="first")
    await store.insert_session(s)
    assert await store.get_session(s.id) == s

    changed = s.model_copy(update={"title": "renamed"})
    await store.update_session(changed)
    assert (await store.get_session(s.id)).title == "renamed"


async def test_unknown_session_is_not_found(store: Store, project: Project) -> None:
    with pytest.raises(NotFoundError, match="ses_nope"):
        await store.get_session("ses_nope")
    with pytest.raises(NotFoundError):
        await store.update_session(f.session(project.id))
    with pytest.raises(NotFoundError):
        await store.delete_session("ses_nope")


async def test_session_of_unknown_project_is_refused(store: Store) -> None:
    with pytest.raises(StorageError, match="FOREIGN KEY"):
        await store.insert_session(f.session("prj_missing"))


async def test_duplicate_session_id_is_refused(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    with pytest.raises(StorageError, match="UNIQUE"):
        await store.insert_session(s)


async def test_list_is_newest_first_even_within_one_millisecond(store: Store, project: Project) -> None:
    # The same time.updated for all: the id (ascending, minted in order) breaks the tie.
    made = [f.session(project.id, updated=1_000) for _ in range(5)]
    for s in made:
        await store.insert_session(s)
    listed = await store.list_sessions(project.id)
    assert [s.id for s in listed] == [s.id for s in reversed(made)]


async def test_list_orders_by_last_update(store: Store, project: Project) -> None:
    old = f.session(project.id, updated=1_000)
    new = f.session(project.id, updated=2_000)
    await store.insert_session(old)
    await store.insert_session(new)
    assert [s.id for s in await store.list_sessions(project.id)] == [new.id, old.id]

    await store.update_session(
        old.model_copy(update={"time": old.time.model_copy(update={"updated": 3_000})})
    )
    assert [s.id for s in await store.list_sessions(project.id)] == [old.id, new.id]


async def test_list_pages_without_gaps_or_repeats(store: Store, project: Project) -> None:
    made = [f.session(project.id, updated=1_000 + i // 3) for i in range(10)]
    for s in made:
        await store.insert_session(s)
    seen: list[str] = []
    before: str | None = None
    while True:
        page = await store.list_sessions(project.id, limit=4, before=before)
        if not page:
            break
        seen.extend(s.id for s in page)
        before = page[-1].id
    expected = sorted(made, key=lambda s: (s.time.updated, s.id), reverse=True)
    assert seen == [s.id for s in expected]


async def test_list_with_unknown_cursor_is_not_found(store: Store, project: Project) -> None:
    with pytest.raises(NotFoundError):
        await store.list_sessions(project.id, before="ses_gone")


async def test_list_is_per_project(store: Store, project: Project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other = await store.ensure_project(other_dir)
    await store.insert_session(f.session(project.id))
    await store.insert_session(f.session(other.id))
    assert len(await store.list_sessions(project.id)) == 1
    assert len(await store.list_sessions(other.id)) == 1


async def test_delete_cascades_to_children_messages_parts_and_todos(store: Store, project: Project) -> None:
    root = f.session(project.id)
    child = f.session(project.id, parent_id=root.id)
    grandchild = f.session(project.id, parent_id=child.id)
    keep = f.session(project.id)
    for s in (root, child, grandchild, keep):
        await store.insert_session(s)
    u = f.user(grandchild.id)
    await store.upsert_message(u)
    await store.upsert_part(f.text(grandchild.id, u.id, "hi"))
    await store.set_todos(child.id, [Todo(content="x", status="pending")])
    assert [s.id for s in await store.child_sessions(root.id)] == [child.id]

    deleted = await store.delete_session(root.id)

    assert [s.id for s in deleted] == [grandchild.id, child.id, root.id]
    for gone in (root, child, grandchild):
        with pytest.raises(NotFoundError):
            await store.get_session(gone.id)
    assert [s.id for s in await store.list_sessions(project.id)] == [keep.id]
    # No orphan rows are left behind by the cascade.
    for table in ("messages", "parts", "todos"):
        row = await store._fetchone(f"SELECT count(*) FROM {table}")
        assert row is not None and row[0] == 0, table


async def test_child_sessions_oldest_first(store: Store, project: Project) -> None:
    root = f.session(project.id)
    await store.insert_session(root)
    kids = [f.session(project.id, parent_id=root.id) for _ in range(3)]
    for k in kids:
        await store.insert_session(k)
    assert [s.id for s in await store.child_sessions(root.id)] == [k.id for k in kids]
    assert await store.child_sessions(kids[0].id) == []


async def test_todos_replace_and_default_empty(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    assert await store.get_todos(s.id) == []
    first = [Todo(content="a", status="pending"), Todo(content="b", status="in_progress", priority="high")]
    await store.set_todos(s.id, first)
    assert await store.get_todos(s.id) == first
    await store.set_todos(s.id, first[:1])
    assert await store.get_todos(s.id) == first[:1]


async def test_approvals_add_list_revoke(store: Store, project: Project) -> None:
    a = await store.add_approval(project.id, "bash", "git status*")
    b = await store.add_approval(project.id, "edit", "src/**")
    assert await store.add_approval(project.id, "bash", "git status*") == a  # remembered once
    listed = await store.list_approvals(project.id)
    assert [(x.id, x.permission, x.pattern) for x in listed] == [
        (a, "bash", "git status*"),
        (b, "edit", "src/**"),
    ]

    await store.revoke_approval(project.id, a)
    assert [x.id for x in await store.list_approvals(project.id)] == [b]
    with pytest.raises(NotFoundError):
        await store.revoke_approval(project.id, a)
