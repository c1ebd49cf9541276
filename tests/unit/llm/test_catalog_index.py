"""The model map lookup index: a start answers ``model_entry`` from a small file instead of parsing
litellm's 3 MB map, and never answers from an index of another map."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.llm import catalog

GPT = {"litellm_provider": "openai", "max_input_tokens": 128000, "max_output_tokens": 16384}
CLAUDE = {"litellm_provider": "anthropic", "max_input_tokens": 200000, "max_output_tokens": 64000}


@pytest.fixture
def litellm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A litellm folder of our own with a two-model map, and a fresh cache folder."""
    folder = tmp_path / "litellm"
    folder.mkdir()
    write_map(folder, {"gpt-x": GPT, "anthropic/claude-x": CLAUDE})
    monkeypatch.setattr(catalog, "litellm_dir", lambda: folder)
    monkeypatch.setenv("AGENTLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(catalog, "_INDEX", catalog._LookupIndex())
    catalog.model_map.cache_clear()
    yield folder
    catalog.model_map.cache_clear()


def write_map(folder: Path, entries: dict[str, Any]) -> None:
    (folder / catalog.MODEL_MAP_FILE).write_text(json.dumps(entries))


def parses() -> int:
    """How many times the whole map was parsed since the last ``new_process``."""
    return catalog.model_map.cache_info().misses


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process starts with: no parsed map, no index in memory."""
    catalog.model_map.cache_clear()
    monkeypatch.setattr(catalog, "_INDEX", catalog._LookupIndex())


def index_file(tmp_path: Path) -> Path:
    return tmp_path / "cache" / catalog.INDEX_FILE


def test_the_second_process_answers_from_the_index(
    litellm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert catalog.model_entry("openai", "gpt-x") == GPT
    assert catalog.model_entry("anthropic", "claude-x") == CLAUDE
    assert catalog.model_entry("openai", "nope") is None
    assert parses() == 1
    new_process(monkeypatch)
    assert catalog.model_entry("openai", "gpt-x") == GPT
    assert catalog.model_entry("anthropic", "claude-x") == CLAUDE
    assert catalog.model_entry("openai", "nope") is None  # a miss is remembered too
    assert parses() == 0
    assert catalog.model_entry("anthropic", "gpt-x") is None  # the provider must match
    assert parses() == 1


def test_a_changed_map_discards_the_index(litellm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert catalog.model_entry("openai", "gpt-x") == GPT
    bigger = {**GPT, "max_input_tokens": 400000}
    write_map(litellm, {"gpt-x": bigger})  # litellm upgraded: another size
    new_process(monkeypatch)
    assert catalog.model_entry("openai", "gpt-x") == bigger
    assert parses() == 1


def test_the_same_process_notices_a_changed_map(litellm: Path) -> None:
    assert catalog.model_entry("openai", "gpt-x") == GPT
    write_map(litellm, {})
    os.utime(litellm / catalog.MODEL_MAP_FILE, ns=(1, 1))
    catalog.model_map.cache_clear()
    assert catalog.model_entry("openai", "gpt-x") is None


def test_a_damaged_index_is_rebuilt(litellm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert catalog.model_entry("openai", "gpt-x") == GPT
    source = catalog._source_of(litellm / catalog.MODEL_MAP_FILE)
    damages = ["{not json", '{"source": 3}', "[]", json.dumps({"source": source, "entries": []})]
    damages.append(json.dumps({"source": source, "entries": {"openai": {"gpt-x": "a string"}}}))
    for damage in damages:
        index_file(tmp_path).write_text(damage)
        new_process(monkeypatch)
        assert catalog.model_entry("openai", "gpt-x") == GPT
        assert parses() == 1
    stored = json.loads(index_file(tmp_path).read_text())
    assert stored["entries"]["openai"]["gpt-x"] == GPT


def test_an_unwritable_cache_costs_only_the_parse(
    litellm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("AGENTLS_CACHE_DIR", str(blocker / "cache"))
    assert catalog.model_entry("openai", "gpt-x") == GPT
    new_process(monkeypatch)
    assert catalog.model_entry("openai", "gpt-x") == GPT
    assert parses() == 1


def test_without_litellm_nothing_is_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog, "litellm_dir", lambda: None)
    monkeypatch.setenv("AGENTLS_CACHE_DIR", str(tmp_path / "cache"))
    new_process(monkeypatch)
    assert catalog.model_entry("openai", "gpt-4o") is None
    catalog.model_map.cache_clear()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "truncated", "wrong-types", "huge"])
def test_an_index_that_is_not_a_sound_file_is_rebuilt_without_hanging(
    litellm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    assert catalog.model_entry("openai", "gpt-x") == GPT
    path = index_file(tmp_path)
    good = path.read_text()
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "truncated":
        path.write_text(good[: len(good) // 2])
    elif kind == "wrong-types":  # well-formed JSON of the right shape, but not what was written
        path.write_text(good.replace("128000", '"big"'))
    else:
        path.write_text(good[:-1] + " " * catalog.INDEX_MAX_BYTES + "}")
    new_process(monkeypatch)
    assert catalog.model_entry("openai", "gpt-x") == GPT
    assert parses() == 1  # rebuilt from the map
    assert path.is_file() and not path.is_symlink()
    assert json.loads(path.read_text())["entries"]["openai"]["gpt-x"] == GPT
