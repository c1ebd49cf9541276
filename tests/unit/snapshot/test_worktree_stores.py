"""A checkout and its linked git worktrees are one project (one id), but each gets a snapshot store
of its own: two work trees recording into one journal (or staging into one index) took one's
same-sized edit for the other's."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.snapshot.factory import open_snapshots, store_key
from core.workspace import DiskWorkspace, EditContext

from .conftest import git

CTX = EditContext(label="test")


def test_a_linked_worktree_has_a_store_of_its_own_and_the_checkout_keeps_its_own(
    project: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(project, "worktree", "add", "-q", "-b", "side", str(linked))
    assert store_key("prj_x", project) == "prj_x"  # (existing stores keep their name)
    key = store_key("prj_x", linked)
    assert key.startswith("prj_x-") and key != store_key("prj_x", tmp_path / "other")
    assert store_key("prj_x", tmp_path / "not-a-repo") == "prj_x"


@pytest.mark.parametrize("use_git", [True, False], ids=["git store", "edit journal"])
async def test_the_same_edit_size_in_two_worktrees_is_each_one_s_own(
    project: Path, tmp_path: Path, data_dir: Path, use_git: bool
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, branch in ((one, "b1"), (two, "b2")):
        git(project, "worktree", "add", "-q", "-b", branch, str(folder))
    setups = {
        folder: open_snapshots(data_dir, "prj_x", folder, DiskWorkspace(folder), use_git=use_git)
        for folder in (one, two)
    }
    before = {folder: await setups[folder].snapshots.track() for folder in (one, two)}
    # Within the same second, the same size: only the content tells them apart.
    for folder, said in ((one, "one"), (two, "two")):
        await setups[folder].workspace.write_bytes(
            folder / "old_name.txt", f"changed by {said}\n".encode(), CTX
        )
    for folder, said in ((one, "one"), (two, "two")):
        snapshots = setups[folder].snapshots
        after, start = await snapshots.track(), before[folder]
        assert start is not None and after is not None
        assert (await snapshots.patch(start, after)).files == ["old_name.txt"]
        assert await snapshots.file_at(after, "old_name.txt") == f"changed by {said}\n".encode()
        assert await snapshots.file_at(start, "old_name.txt") == b"to be renamed\n"
