"""The agent asks the language servers Neovim runs: a real headless Neovim with the plugin, the real
``agentls serve``, a small stdio language server written for the test (``toy_ls.py``) attached through
``vim.lsp``, and the scripted fake model calling the editor tools; the requests it received hold the
language server's answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim

TOY_LS = Path(__file__).resolve().parent / "toy_ls.py"
AT_USE = {"filePath": "main.py", "line": 2, "symbol": "greet"}


def write_project(nvim: Nvim) -> None:
    (nvim.project / "lib.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (nvim.project / "main.py").write_text("from lib import greet\nmessage = greet('world')  # TODO: louder\n")


def tool_results(nvim: Nvim, step: int) -> str:
    messages = nvim.model.requests[step].messages
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "tool")


def test_definition_references_hover_and_diagnostics_come_from_the_attached_server(nvim: Nvim) -> None:
    write_project(nvim)
    at_use = AT_USE
    nvim.model.script(
        Turn.tool_call("editor_definition", at_use),
        Turn.tool_call("editor_references", at_use),
        Turn.tool_call("editor_hover", at_use),
        Turn.tool_call("editor_diagnostics", {"filePath": "main.py"}),
        Turn.text("The answer."),
    )
    run = nvim.run(
        "editor_queries.lua", AGENTLS_TEST_TOY_LS=json.dumps([sys.executable, str(TOY_LS)])
    ).check()
    offered = {t["function"]["name"] for t in nvim.model.requests[0].tools}
    assert {"editor_definition", "editor_references", "editor_workspace_symbols"} <= offered, offered
    assert "lib.py:1: def greet(name):" in tool_results(nvim, 1), run.stderr
    references = tool_results(nvim, 2)
    assert "main.py:1: from lib import greet" in references, references
    assert "main.py:2: message = greet('world')  # TODO: louder" in references, references
    assert "def greet(name):\n```\n(toy-ls)" in tool_results(nvim, 3), tool_results(nvim, 3)
    assert "main.py:2: warning: a TODO is left [toy]" in tool_results(nvim, 4), tool_results(nvim, 4)


def test_a_file_no_language_server_is_attached_to_is_a_clear_tool_error(nvim: Nvim) -> None:
    write_project(nvim)
    nvim.model.script(Turn.tool_call("editor_definition", AT_USE), Turn.text("The answer."))
    run = nvim.run("editor_queries.lua", AGENTLS_TEST_TOY_LS="[]").check()
    error = tool_results(nvim, 1)
    expected = "the editor could not answer the definition query: no language server attached to"
    assert expected in error and "main.py answers textDocument/definition" in error, run.stderr + error
