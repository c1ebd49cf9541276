"""The remembered trust (core.project_trust.store): canonical paths, mode 600, bad files named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.project_trust import store


def test_add_list_revoke_by_canonical_path(tmp_path: Path) -> None:
    project, link, data = tmp_path / "project", tmp_path / "link", tmp_path / "data"
    project.mkdir()
    link.symlink_to(project)
    assert store.add(data, link) == project
    assert list(store.read(data)) == [str(project)] and store.is_trusted(data, project)
    assert (data / "trust.json").stat().st_mode & 0o777 == 0o600
    assert store.revoke(data, project) and not store.is_trusted(data, link)
    assert not store.revoke(data, project)
    assert json.loads((data / "trust.json").read_text()) == {"version": 1, "trusted": {}}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "expected"),
        ('{"trusted": []}', "expected"),
        ('{"trusted": {"/p": true}}', "expected"),
        (None, "cannot read"),  # a folder where the file should be
        ("fifo", "cannot read"),
    ],
)
def test_a_bad_store_is_named_and_kept(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "trust.json"
    if content is None:
        path.mkdir()
    elif content == "fifo":
        os.mkfifo(path)
    else:
        path.write_text(content)
    with pytest.raises(store.TrustStoreError, match=message) as caught:
        store.read(tmp_path)
    assert str(path) in str(caught.value)
    assert not store.is_trusted(tmp_path, tmp_path)
    with pytest.raises(store.TrustStoreError):
        store.add(tmp_path, tmp_path)
    if content not in (None, "fifo"):
        assert path.read_text() == content
