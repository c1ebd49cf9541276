"""Context items in a real VS Code (code-server + Chromium) with its built-in TypeScript server, the
extension, the real ``agentls serve`` and the scripted fake model: ``@problems`` (getDiagnostics),
``@symbol`` (executeWorkspaceSymbolProvider + the definition's text), ``@terminal`` (the active
terminal's last command output, through shell integration), ``@changes``, ``@folder`` and ``@url``
(read by the server) and the editor note each reach the request the model received, with the token
count the chip showed; the note's chip removed or the ``agentls.context.editor`` setting off keep the
note out. Screenshots go to ``tests/vscode/screenshots/context``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core.context.encoding import DEFAULT_LOADER, encoding_name_for
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.tools import ROOT, tool, tools_env
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"
LIB = 'export function greet(name: string): string {\n  return "hello " + name;\n}\n'
MAIN = (
    'import { greet } from "./lib";\nexport const message = greet("world");\n'
    + 'export const wrong: number = "x";\n'
)
TSCONFIG = {"compilerOptions": {"strict": True, "module": "commonjs"}, "include": ["*.ts"]}


@dataclass
class Run:
    result: dict[str, Any]
    output: str
    model: FakeModelServer

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)

    def user_texts(self, step: int) -> list[str]:
        user = [m for m in self.model.requests[step].messages if m.get("role") == "user"][-1]
        content = user["content"]
        items = content if isinstance(content, list) else [{"type": "text", "text": content}]
        return [str(c.get("text", "")) for c in items if c.get("type") == "text"]


class Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = b"<html><body><h1>Release notes</h1><p>Version 2 adds tabs.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    tmp = tmp_path_factory.mktemp("vscode-context")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "lib.ts").write_text(LIB.replace('"hello "', '"hi "'))
    (folder / "main.ts").write_text(MAIN)
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    (folder / "lib.ts").write_text(LIB)  # the change @changes shows
    shots = tmp / "screenshots"
    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text("First."), Turn.text("Second."), Turn.text("Third."))
        titles.script(*[Turn.text("Context") for _ in range(4)])
        settings = {
            "agentls.server.path": str(AGENTLS),
            "agentls.config": fake_model_config(model, titles),
            "agentls.permission": {"webfetch": "allow", "local_network": "allow"},  # the site is on 127.0.0.1
        }
        env = {
            "AGENTLS_DATA_DIR": str(tmp / "agentls-data"),
            "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config"),
        }
        with code_server(tmp / "vscode", package, settings, env) as cs:
            site_url = f"http://127.0.0.1:{site.server_address[1]}"
            args = {"url": cs.url, "folder": str(folder), "shots": str(shots), "site": site_url}
            done = subprocess.run(
                [tool("node"), str(HERE / "e2e_context.mjs"), json.dumps(args)],
                env=tools_env(),
                capture_output=True,
                text=True,
                timeout=400,
            )
            output = done.stdout + done.stderr
            if done.returncode != 0:
                output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
        result: dict[str, Any] = {}
        for line in done.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT ") :])
        target = HERE / "screenshots" / "context"
        shutil.rmtree(target, ignore_errors=True)
        if shots.is_dir():
            shutil.copytree(shots, target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "driver.log").write_text(output)
        yield Run(result, output, model)
    site.shutdown()


def tokens(text: str) -> int:
    encoder = DEFAULT_LOADER.get(encoding_name_for("m"))
    assert encoder is not None
    return len(encoder.encode_ordinary(text))


def test_each_item_reaches_the_model_with_the_count_its_chip_showed(run: Run) -> None:
    r = run.phase("chips")
    texts = run.user_texts(0)
    sent = {
        kind: next((t for t in texts if t.startswith(f"<{kind}")), "")
        for kind in ("problems", "symbol", "terminal", "changes", "folder", "url")
    }
    assert (
        "main.ts:3:14: error: Type 'string' is not assignable to type 'number'. [ts]" in sent["problems"]
    ), texts
    assert (
        '1: export function greet(name: string): string {\n2:   return "hello " + name;\n3: }'
        in sent["symbol"]
    ), texts
    # The last command and its output, as shell integration reported them.
    assert (
        "$ echo build-failed-3-errors" in sent["terminal"] and "\nbuild-failed-3-errors" in sent["terminal"]
    ), texts
    assert '-  return "hi " + name;' in sent["changes"] and '+  return "hello " + name;' in sent["changes"], (
        texts
    )
    counted = [chip for chip in r["chips"] if chip.startswith("@")]
    assert (
        sent["folder"].startswith('<folder path="./">\n./\n') and "\n  lib.ts\n  main.ts\n" in sent["folder"]
    ), texts
    assert "# Release notes" in sent["url"], texts
    assert len(counted) == 6, r["chips"]
    for chip in counted:
        kind = chip.split(" ", 1)[0].lstrip("@").split(":")[0]
        shown = int(re.sub(r"[^0-9]", "", chip.rsplit("·", 1)[1]))
        spent = tokens(sent[kind])
        assert abs(shown - spent) <= 0.05 * spent, (chip, spent)


def test_the_editor_note_names_the_file_line_and_selection(run: Run) -> None:
    r = run.phase("chips")
    assert r["editorChip"].startswith("✎ main.ts:2 · "), r["editorChip"]
    [note] = [t for t in run.user_texts(0) if t.startswith("<editor-context>")]
    assert "main.ts" in note and "line 2" in note, note
    assert 'export const message = greet("world");' in note.split("<editor-selection")[1], note
    shown = int(re.sub(r"[^0-9]", "", r["editorChip"].rsplit("·", 1)[1]))
    assert abs(shown - tokens(note)) <= 0.05 * tokens(note), (shown, note)


def test_a_removed_note_chip_or_the_setting_off_keeps_the_note_out(run: Run) -> None:
    run.phase("drop-note")
    run.phase("setting-off")
    assert not [t for t in run.user_texts(1) if "<editor-context>" in t], run.user_texts(1)
    assert not [t for t in run.user_texts(2) if "<editor-context>" in t], run.user_texts(2)
