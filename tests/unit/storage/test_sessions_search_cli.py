"""`agentls sessions search` and `export --format md` run as real subprocesses against a real store."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from core import ids
from core.message.models import PartTime, Session, TextPart, now_ms
from core.storage import DB_NAME, Store
from tests.unit.storage import factories as f

AGENTLS = Path(__file__).resolve().parents[3] / ".venv" / "bin" / "agentls"


@dataclass
class Seeded:
    tree: Path
    data: Path
    old: Session
    new: Session


def _run(seeded: Seeded, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTLS_DATA_DIR": str(seeded.data)}
    return subprocess.run(
        [str(AGENTLS), *args], cwd=seeded.tree, env=env, capture_output=True, text=True, timeout=60
    )


def _text(session_id: str, message_id: str, text: str) -> TextPart:
    now = now_ms()
    return TextPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        text=text,
        time=PartTime(start=now, end=now),
    )


async def _seed(tmp_path: Path) -> Seeded:
    tree = tmp_path / "tree"
    tree.mkdir()
    data = tmp_path / "data"
    async with await Store.open(data / DB_NAME) as store:
        project = await store.ensure_project(tree)
        old = f.session(project.id, title="Tokenizer crash", updated=1_000)
        new = f.session(project.id, title="Release notes")
        for s in (old, new):
            await store.insert_session(s)
            u = f.user(s.id)
            a = f.assistant(s.id, u.id)
            await store.upsert_message(u)
            await store.upsert_message(a)
            await store.upsert_parts(
                [
                    _text(s.id, u.id, f"why does the tokenizer panic in {s.title}?"),
                    f.completed_tool(s.id, a.id),
                ]
            )
            await store.upsert_part(_text(s.id, a.id, "Because ``` fences were not closed."))
    return Seeded(tree, data, old, new)


@pytest.fixture
def seeded(tmp_path: Path) -> Seeded:
    return asyncio.run(_seed(tmp_path))


def test_search_prints_matching_sessions_newest_first(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "search", "tokenizer")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [lines[0].split()[0], lines[2].split()[0]] == [seeded.new.id, seeded.old.id]
    assert lines[1].strip() == "why does the tokenizer panic in Release notes?"

    as_json = json.loads(
        _run(seeded, "sessions", "search", "tokenizer", "--since", "1970-01-02", "--json").stdout
    )
    assert [h["session"]["id"] for h in as_json] == [seeded.new.id]
    hit = as_json[0]
    assert [hit["snippet"][a:b] for a, b in hit["highlights"]] == ["tokenizer"]
    assert hit["partID"].startswith("prt_") and hit["messageID"].startswith("msg_")


def test_search_filters_by_agent_and_until(seeded: Seeded) -> None:
    assert _run(seeded, "sessions", "search", "tokenizer", "--agent", "plan").stdout == ""
    done = _run(
        seeded, "sessions", "search", "tokenizer", "--agent", "build", "--until", "1970-01-02", "--json"
    )
    assert [h["session"]["id"] for h in json.loads(done.stdout)] == [seeded.old.id]


def test_search_with_no_match_says_so_and_succeeds(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "search", "zeppelin")
    assert done.returncode == 0 and done.stdout == ""
    assert "matches 'zeppelin'" in done.stderr


@pytest.mark.parametrize(
    ("query", "found"),
    [('"unclosed', False), ("foo-bar", False), ("AND", False), ("tokenizer:", True), ("(panic", True)],
)
def test_typed_punctuation_and_sql_words_are_searched_as_text(
    seeded: Seeded, query: str, found: bool
) -> None:
    done = _run(seeded, "sessions", "search", query)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert bool(done.stdout) == found


@pytest.mark.parametrize("query", ['fts:"unclosed', "fts:foo-bar", "fts:AND"])
def test_bad_fts_query_is_a_one_line_error(seeded: Seeded, query: str) -> None:
    done = _run(seeded, "sessions", "search", query)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("agentls: the search query") and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("since", ["yesterday", "7x", ""])
def test_bad_date_is_a_usage_error(seeded: Seeded, since: str) -> None:
    done = _run(seeded, "sessions", "search", "tokenizer", "--since", since)
    assert done.returncode == 2
    assert "is not a date" in done.stderr


def test_export_markdown_folds_tool_calls(seeded: Seeded) -> None:
    done = _run(seeded, "sessions", "export", seeded.new.id, "--format", "md")
    assert done.returncode == 0, done.stderr
    md = done.stdout
    assert md.startswith("# Release notes\n")
    assert "## User · " in md and "## Assistant (build, local/m) · " in md
    assert "<details>\n<summary>Tool: read" in md and "(completed)</summary>" in md
    assert "why does the tokenizer panic in Release notes?" in md
    assert "Because ``` fences were not closed." in md
    # JSON export keeps its shape
    document = json.loads(_run(seeded, "sessions", "export", seeded.new.id).stdout)
    assert set(document) == {"info", "messages"}
