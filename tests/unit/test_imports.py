"""What a plain `agentls run` and `agentls serve` (until `initialize` is answered) import.

Each test runs the installed console script as a real process with ``PYTHONPROFILEIMPORTTIME``
(``python -X importtime``), so a heavy import that creeps back into the start-up path fails here
instead of silently costing every user a fraction of a second. Timings are in bench/startup.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentls.boot import chosen_command
from agentls.cli import COMMANDS
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "hello from the fake model"

# Loaded when configured or first used, never by a plain turn (module → why it is heavy).
NEVER_ON_START = {
    "mcp": "the MCP SDK, only when an MCP server is configured",
    "mcp_types": "the MCP SDK's schema",
    "litellm": "seconds; only for providers without a lean route",
    "openai": "litellm's client",
    "tiktoken": "the BPE tables, only when a request is too big to fit counted as bytes",
    "bs4": "webfetch's HTML stack, at the first page",
    "soupsieve": "webfetch's HTML stack",
    "markdownify": "webfetch's HTML stack",
    "yaml": "agent and skill front matter, at the first such file",
    "httpx": "web pages, instruction URLs and litellm's requests; model streams use core.llm.http",
    "httpcore": "httpx's connections",
    "anyio": "httpx's async backend",
    "click": "httpx's own command line",
    "rich": "httpx's own command line",
    "pygments": "httpx's own command line",
    "acp": "the ACP front end",
    "h2": "HTTP/2, which agentls never speaks (httpcore imports it when installed)",
}
# What `agentls serve` must not load before it answers `initialize` (the agent loads after it).
NOT_BEFORE_INITIALIZE = {
    **NEVER_ON_START,
    "core.app": "the agent: it opens in the background after `initialized`",
    "core.session.loop": "the agent's session loop",
    "core.storage": "the store",
    "aiosqlite": "the store",
    "h11": "model connections",
}


def agentls() -> str:
    script = Path(sys.executable).parent / "agentls"
    if not script.exists():
        pytest.fail(f"no console script at {script}: run ./scripts/setup (pip install -e .)")
    return str(script)


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("AGENTLS_") and k != "PYTHONPATH"}
    out.update(
        AGENTLS_DATA_DIR=str(tmp_path / "data"),
        AGENTLS_CONFIG_DIR=str(tmp_path / "config"),
        HOME=str(tmp_path / "home"),
        PYTHONPROFILEIMPORTTIME="1",
        **extra,
    )
    return out


def imported(stderr: str) -> set[str]:
    """Every module the process imported, from its ``-X importtime`` lines."""
    names = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", stderr, re.MULTILINE)
    assert names, f"no -X importtime output:\n{stderr[-2000:]}"
    return set(names)


def offenders(modules: set[str], banned: dict[str, str]) -> list[str]:
    found = []
    for name, why in banned.items():
        hits = sorted(m for m in modules if m == name or m.startswith(name + "."))
        if hits:
            found.append(f"{hits[0]} ({why})")
    return found


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    return root


def test_a_plain_run_imports_nothing_heavy(tmp_path: Path) -> None:
    root = project(tmp_path)
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(Turn.text(ANSWER, chunks=3))
        titles.script(Turn.text("A title"))
        config = json.dumps(fake_model_config(model, titles))
        done = subprocess.run(
            [agentls(), "run", "say hello", "--yes", "-C", str(root)],
            env=env(tmp_path, AGENTLS_CONFIG_CONTENT=config),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-4000:]
    assert ANSWER in done.stdout
    modules = imported(done.stderr)
    assert "core.app" in modules  # the parse worked: the agent itself was imported
    assert offenders(modules, NEVER_ON_START) == []


def test_serve_answers_initialize_without_loading_the_agent(tmp_path: Path) -> None:
    root = project(tmp_path)
    messages: list[dict[str, Any]] = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        },
        {"id": 2, "method": "shutdown"},
        {"method": "exit"},
    ]
    stdin = b"".join(_frame(m) for m in messages)  # no `initialized`: the agent never starts loading
    done = subprocess.run(
        [agentls(), "serve"], env=env(tmp_path), cwd=root, input=stdin, capture_output=True, timeout=120
    )
    answers = _unframe(done.stdout)
    stderr = done.stderr.decode(errors="replace")
    assert answers and answers[0].get("id") == 1, f"no initialize answer: {answers}\n{stderr[-4000:]}"
    assert "capabilities" in answers[0]["result"]
    modules = imported(stderr)
    assert "lsp_server.server" in modules
    assert offenders(modules, NOT_BEFORE_INITIALIZE) == []


def help_with_blocked(tmp_path: Path, blocked: str) -> subprocess.CompletedProcess[str]:
    """``agentls --help`` (every command module imported) in a process where ``blocked`` is absent."""
    script = (
        f"import sys; sys.modules[{blocked!r}] = None\n"  # None: an import of it fails, as if uninstalled
        "from agentls.cli import COMMANDS\nfrom agentls.boot import run\n"
        "sys.exit(run(['--help'], commands=COMMANDS))"
    )
    return python_c(tmp_path, script)


def python_c(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``python -c script`` in the test's environment, without import timing."""
    return subprocess.run(
        [sys.executable, "-c", script],
        env={**env(tmp_path), "PYTHONPROFILEIMPORTTIME": ""},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_absent_front_end_leaves_the_other_commands(tmp_path: Path) -> None:
    done = help_with_blocked(tmp_path, "acp_server")
    assert done.returncode == 0, done.stderr
    assert "serve" in done.stdout and "run" in done.stdout and "acp" not in done.stdout


def test_a_command_missing_a_dependency_fails_loudly(tmp_path: Path) -> None:
    done = help_with_blocked(tmp_path, "lsprotocol")  # lsp_server's demo needs it
    assert done.returncode == 1
    assert "ModuleNotFoundError" in done.stderr and "lsprotocol" in done.stderr


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["run", "hi"], "run"),
        (["--log-level", "DEBUG", "serve"], "serve"),
        (["--log-level", "run", "sessions", "list"], "sessions"),  # "run" is the option's value
        (["--log-level=INFO", "run", "serve"], "run"),  # "serve" is run's prompt
        (["--version"], None),
        (["nosuch", "run"], None),
        (["--", "run"], None),
        ([], None),
    ],
)
def test_the_command_is_the_first_positional_argument(argv: list[str], command: str | None) -> None:
    assert chosen_command(argv, COMMANDS) == command


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def _unframe(data: bytes) -> list[dict[str, Any]]:
    out = []
    while (start := data.find(b"\r\n\r\n")) >= 0:
        length = int(re.search(rb"Content-Length: (\d+)", data[:start], re.IGNORECASE)[1])  # type: ignore[index]
        out.append(json.loads(data[start + 4 : start + 4 + length]))
        data = data[start + 4 + length :]
    return out


# What each front end's early `initialize` answer may rest on (the answer goes out before the rest).
EARLY_PATHS = {
    "lsp_server.handshake": ("agentls.cli", "lsp_server.serve_cmd", "lsp_server.handshake"),
    "acp_server.handshake": ("agentls.cli", "acp_server.acp_cmd", "acp_server.handshake", "asyncio"),
}
NOT_BEFORE_THE_EARLY_ANSWER = ("pygls", "lsprotocol", "attrs", "cattrs", "acp", "pydantic", "core.app")


@pytest.mark.parametrize("path", list(EARLY_PATHS))
def test_the_early_initialize_answer_imports_no_protocol_library(tmp_path: Path, path: str) -> None:
    script = (
        "import importlib, json, sys\n"
        f"for name in {EARLY_PATHS[path]!r}: importlib.import_module(name)\n"
        # (the launcher's stand-ins are not the libraries: a None block, pydantic's plugin loader)
        "print(json.dumps(sorted(n for n, m in sys.modules.items()"
        " if m is not None and not (m.__doc__ or '').startswith('agentls:'))))"
    )
    done = python_c(tmp_path, script)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout))
    assert path in modules
    assert (
        sorted(m for m in modules if m.split(".")[0] in NOT_BEFORE_THE_EARLY_ANSWER or m == "core.app") == []
    )
