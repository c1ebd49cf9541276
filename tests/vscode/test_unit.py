"""The extension's own checks: strict TypeScript, and the view's reducer and Markdown under node --test,
on the committed recorded streams and on streams recorded afresh from the real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import tool, tools_env
from tests.vscode.build import EXTENSION, npm_ci
from tests.vscode.record_fixtures import FIXTURES, record_all

NODE_TEST = ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "--test", "--test-reporter=spec"]


def pythons() -> dict[str, str]:
    """Real interpreters for test/python.test.ts: this one (3.11+), and a 3.10 when pyenv has one."""
    found = {"AGENTLS_TEST_PYTHON": str(Path(sys.base_prefix) / "bin" / "python3")}
    old = sorted(Path.home().glob(".pyenv/versions/3.10.*/bin/python3.10"))
    if old:
        found["AGENTLS_TEST_OLD_PYTHON"] = str(old[-1])
    return found


def node_tests(fixtures: Path) -> subprocess.CompletedProcess[str]:
    tests = sorted(str(p) for p in (EXTENSION / "test").glob("*.test.ts"))
    env = {**tools_env(), "AGENTLS_FIXTURES": str(fixtures), **pythons()}
    return subprocess.run(
        [tool("node"), *NODE_TEST, *tests],
        cwd=EXTENSION,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# The extension host (no DOM), the webview (DOM, no Node) and the tests, each with its own tsconfig;
# all three include shared/protocol.ts, generated from the server's protocol source.
@pytest.mark.parametrize("project", [".", "webview", "test"])
def test_typescript_is_strict_clean(project: str) -> None:
    npm_ci()
    done = subprocess.run(
        [tool("node"), "node_modules/typescript/bin/tsc", "--noEmit", "-p", project],
        cwd=EXTENSION,
        env=tools_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_reducer_on_committed_fixtures() -> None:
    npm_ci()
    done = node_tests(FIXTURES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout or "ℹ fail 0" in done.stdout, done.stdout


def test_reducer_on_streams_recorded_now(tmp_path: Path) -> None:
    npm_ci()
    record_all(tmp_path)
    done = node_tests(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
