"""Context items through the real server: ``agent/context/resolve`` turns each into the text the model
sees and counts it; a prompt that carries the resolved text puts exactly that text in the model request,
and the count shown is within 5 % of what the request spends on it."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from core.context.encoding import DEFAULT_LOADER, encoding_name_for
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.unit.tools.websites import Site, serving


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


class Page(BaseHTTPRequestHandler):
    release = threading.Event()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/slow":
            self.release.wait(10)
        body = b"<html><body><h1>Release notes</h1><p>Version 2 adds <b>tabs</b>.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    Page.release.set()
    server.shutdown()
    Page.release.clear()


def tokens(text: str) -> int:
    """What the core's counter for the fake model (``fake/m``) makes of ``text``, counted afresh."""
    encoder = DEFAULT_LOADER.get(encoding_name_for("m"))
    assert encoder is not None, "the tokenizer tables ship with litellm and load offline"
    return len(encoder.encode_ordinary(text))


def user_texts(model: FakeModelServer, index: int) -> list[str]:
    user = [m for m in model.requests[index].messages if m.get("role") == "user"][-1]
    content = user["content"]
    items = content if isinstance(content, list) else [{"type": "text", "text": content}]
    return [str(c["text"]) for c in items if c.get("type") == "text"]


async def resolve(server: Connected, *items: dict[str, Any], session: str | None = None) -> list[Any]:
    params: dict[str, Any] = {"items": list(items)}
    if session:
        params["sessionID"] = session
    return list((await server.call("agent/context/resolve", params))["items"])


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


async def test_each_item_reaches_the_model_as_resolved_and_its_count_holds(
    plugin: Connected, model: FakeModelServer, site: str
) -> None:
    root = plugin.root
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")  # unstaged
    (root / "notes.md").write_text("todo\n")
    git(root, "add", "notes.md")  # staged
    model.script(Turn.text("Done before."), Turn.text("Seen."))
    earlier = (await plugin.call("agent/session/create", {}))["id"]
    await plugin.call(
        "agent/session/prompt", {"sessionID": earlier, "parts": [{"type": "text", "text": "hi"}]}
    )
    sid = (await plugin.call("agent/session/create", {}))["id"]
    items = await resolve(
        plugin,
        {"kind": "folder", "path": "src", "files": True},
        {"kind": "changes"},
        {"kind": "url", "url": f"{site}/notes"},
        {"kind": "session", "session": earlier},
        {
            "kind": "problems",
            "path": str(root / "src" / "calc.py"),
            "problems": [
                {"path": str(root / "src" / "calc.py"), "line": 1, "message": "wrong op", "source": "lint"}
            ],
        },
        {"kind": "terminal", "name": "bash", "text": "$ pytest\n1 failed\n"},
        {
            "kind": "symbol",
            "name": "add",
            "path": str(root / "src" / "calc.py"),
            "line": 0,
            "text": "def add(a, b):",
        },
        session=sid,
    )
    assert [i.get("error") for i in items] == [None] * 7, items
    expect = {
        "folder": ["src/", "calc.py", "return a + b"],
        "changes": ["-    return a - b", "+    return a + b", "+todo", "notes.md"],
        "url": ["# Release notes", "**tabs**"],
        "session": ["Done before."],
        "problems": ["src/calc.py:2:1: error: wrong op [lint]"],
        "terminal": ["1 failed"],
        "symbol": ['name="add"', "1: def add(a, b):"],
    }
    for item in items:
        for needle in expect[item["kind"]]:
            assert needle in item["text"], (item["kind"], item["text"])
    title = (await plugin.call("agent/session/get", {"sessionID": earlier}))["title"]
    assert [i["label"] for i in items] == [
        "src/",
        "changes",
        f"{site}/notes",
        title,
        "problems: src/calc.py",
        "bash",
        "add",
    ]

    parts = [{"type": "text", "text": "look at these"}]
    parts += [{"type": "context", "kind": i["kind"], "label": i["label"], "text": i["text"]} for i in items]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    sent = user_texts(model, len(model.requests) - 1)
    for item in items:
        assert item["text"] in sent, item["kind"]
        spent = tokens(item["text"])  # what the request spends on it
        assert abs(item["tokens"] - spent) <= 0.05 * spent, (item["kind"], item["tokens"], spent)
    # The stored part says which item it was, so a client can show it as a chip.
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    contexts = [
        p["metadata"]["context"] for p in messages[0]["parts"] if (p.get("metadata") or {}).get("context")
    ]
    assert [c["kind"] for c in contexts] == [i["kind"] for i in items]


async def test_a_huge_folder_is_cut_and_its_files_stay_within_the_budget(plugin: Connected) -> None:
    big = plugin.root / "big"
    big.mkdir()
    for n in range(520):
        (big / f"f{n:03}.txt").write_text(f"file {n} " * 40 + "\n")
    (big / "a_logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (big / "a_blob.dat").write_bytes(b"\x00\x01\x02binary")
    [item] = await resolve(plugin, {"kind": "folder", "path": str(big), "files": True, "budget": 2000})
    assert "(the first 500 entries; the folder has more)" in item["text"]
    assert "a_logo.png: left out, not text" in item["text"]
    assert "a_blob.dat: left out, not text" in item["text"]
    assert str(plugin.root) not in item["text"]  # named as in the project, never by a machine path
    assert "more files left out: the budget of 2,000 tokens is spent" in item["text"]
    assert '<file path="f000.txt">' in item["text"]
    listing = item["text"].split("\n\n")[0]
    assert tokens(item["text"]) - tokens(listing) <= 2000 + 100  # the files' budget, and the notes


@pytest.mark.parametrize(
    ("item", "error"),
    [
        ({"kind": "folder", "path": "missing"}, "does not exist"),
        ({"kind": "folder", "path": "hello.py"}, "is a file, not a folder"),
        ({"kind": "changes"}, "is not a git repository"),
        ({"kind": "session", "session": "ses_nope"}, "ses_nope"),
        ({"kind": "url", "url": "ftp://example.invalid/x"}, "Only http:// and https:// URLs"),
    ],
)
async def test_an_item_that_cannot_be_read_says_why_and_the_others_still_resolve(
    plugin: Connected, item: dict[str, Any], error: str
) -> None:
    sid = (await plugin.call("agent/session/create", {}))["id"]
    bad, good = await resolve(plugin, item, {"kind": "terminal", "text": "ok"}, session=sid)
    assert error in bad["error"], bad
    assert bad["tokens"] == 0 and not bad.get("text")
    assert good.get("error") is None and "ok" in good["text"]


async def test_a_url_the_rules_deny_or_that_times_out_is_an_error(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, site: str
) -> None:
    from tests.lsp.conftest import connect

    config = agent_config(model, title_model, permission={"webfetch": "deny"})
    async for denied in connect(tmp_path, project, "plugin", {"config": config}):
        sid = (await denied.call("agent/session/create", {}))["id"]
        [item] = await resolve(denied, {"kind": "url", "url": f"{site}/notes"}, session=sid)
        assert "denied" in item["error"].lower(), item
    config = agent_config(model, title_model)
    async for allowed in connect(tmp_path / "again", project, "plugin", {"config": config}):
        sid = (await allowed.call("agent/session/create", {}))["id"]
        [item] = await resolve(allowed, {"kind": "url", "url": f"{site}/slow", "timeout": 0.5}, session=sid)
        assert "timed out: it took more than 0.5 s" in item["error"], item
        [item] = await resolve(allowed, {"kind": "url", "url": f"{site}/notes"})
        assert "pass sessionID" in item["error"], item


async def test_a_url_that_redirects_to_another_origin_asks_once_for_it(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    from tests.lsp.conftest import connect

    with serving(Site("127.0.0.1")) as first, serving(Site("127.0.0.2")) as second:
        url, target = f"{first.url}/old", f"{second.url}/moved"
        first.redirect("/old", target)
        second.page("/moved", b"<h1>Moved notes</h1>")
        # The user allowed the first origin; the second is not covered.
        permission = {"webfetch": {"*": "ask", f"{first.url}/*": "allow"}}
        config = agent_config(model, title_model, permission=permission)
        async for client in connect(tmp_path, project, "plugin", {"config": config}):
            await _ask_for_the_hop_then_refuse_it(client, url, target, second)


async def _ask_for_the_hop_then_refuse_it(client: Connected, url: str, target: str, second: Site) -> None:
    sid = (await client.call("agent/session/create", {}))["id"]
    item = {"kind": "url", "url": url}
    resolving = asyncio.ensure_future(resolve(client, item, session=sid))
    (asked,) = await client.editor.wait_for(lambda: client.events("permission.asked"))
    request = asked["properties"]["request"]
    assert (request["permission"], request["patterns"]) == ("webfetch", [target])
    assert request["title"] == f"Fetch {target} (the attached {url} redirects there, HTTP 302)"
    assert second.requests == []  # nothing reaches the target before the answer
    await client.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    [done] = await resolving
    assert "# Moved notes" in done["text"] and f'redirected="{target}"' in done["text"], done
    assert len(client.events("permission.asked")) == 1

    resolving = asyncio.ensure_future(resolve(client, item, session=sid))
    await client.editor.wait_for(lambda: len(client.events("permission.asked")) == 2)
    again = client.events("permission.asked")[1]["properties"]["request"]
    await client.call("agent/permission/reply", {"requestID": again["id"], "reply": "reject"})
    [refused] = await resolving
    assert f"{url} redirects to {target}, and fetching that was not allowed" in refused["error"]
    assert [path for path, _ in second.requests] == ["/moved"]  # the first time only


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"items": [{"kind": "clipboard"}]}, "items.0"),
        ({"items": []}, "items"),
        ({"items": [{"kind": "terminal", "text": "x" * 400_001}]}, "items.0.terminal.text"),
        ({"items": [{"kind": "folder"}]}, "items.0.folder.path"),
        ({"items": [{"kind": "changes", "extra": 1}]}, "items.0.changes.extra"),
    ],
)
async def test_malformed_items_are_refused_naming_the_field(
    plugin: Connected, params: dict[str, Any], field: str
) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/context/resolve", params)
    assert caught.value.code == -32602
    assert field in caught.value.message, caught.value.message


async def test_resolving_for_an_unknown_session_is_not_found(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await resolve(plugin, {"kind": "changes"}, session="ses_missing")
    assert caught.value.code == -32010


async def test_the_editor_note_is_short_and_reaches_the_request(
    plugin: Connected, model: FakeModelServer
) -> None:
    model.script(Turn.text("ok"), Turn.text("ok"))
    sid = (await plugin.call("agent/session/create", {}))["id"]
    path = str(plugin.root / "hello.py")
    selection = {"startLine": 0, "endLine": 0, "text": "print('hello')"}
    note = {"kind": "editor", "path": path, "line": 0, "selection": selection}
    parts = [{"type": "text", "text": "what does this do?"}, {"type": "context", "item": note}]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    [text] = [t for t in user_texts(model, 0) if "<editor-context>" in t]
    assert "hello.py" in text and "line 1" in text and "print('hello')" in text
    assert str(plugin.root) not in text and tokens(text) < 150, text
    # Without the item (the chip removed, or the setting off) nothing of it is sent.
    await plugin.call(
        "agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "and now?"}]}
    )
    assert not [t for t in user_texts(model, 1) if "<editor-context>" in t]
    # The note was for the model: the session exported to share has the user's words, not the note.
    exported = (await plugin.call("agent/session/export", {"sessionID": sid}))["text"]
    assert "what does this do?" in exported and "and now?" in exported
    assert "editor-context" not in exported and sid not in exported


async def test_a_prompt_whose_item_cannot_be_resolved_is_refused_before_it_is_stored(
    plugin: Connected,
) -> None:
    sid = (await plugin.call("agent/session/create", {}))["id"]
    parts = [{"type": "text", "text": "see"}, {"type": "context", "item": {"kind": "folder", "path": "nope"}}]
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    assert caught.value.code == -32602 and "parts.1.item: the folder" in caught.value.message, (
        caught.value.message
    )
    assert (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"] == []
    both = {"type": "context", "kind": "terminal", "text": "x", "item": {"kind": "changes"}}
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [both]})
    assert "exactly one" in caught.value.message
