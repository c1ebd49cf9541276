"""scripts/check_luacats.py: the Neovim plugin names only the protocol's types and reads only their
fields (the part of lua-language-server's ``--check`` that the protocol needs; see the script)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.check_luacats import check, main

TYPES = """\
---@meta
---@class agentls.Session
---@field id string
---@field title string
---@field time agentls.SessionTime
---@field summary? agentls.DiffSummary

---@class agentls.SessionTime
---@field created integer

---@class agentls.DiffSummary
---@field files integer

---@class agentls.Todo
---@field content string

---@alias agentls.AgentEvent
---| { type: "session.created", properties: agentls.SessionCreated }
---| { type: "todo.updated", properties: { sessionID: string, todos: agentls.Todo[] } }

---@class agentls.SessionCreated
---@field info agentls.Session

---@alias agentls.Either agentls.Session|agentls.Todo
"""

# (what the plugin file says, the problem expected (None: none)).
CASES: list[tuple[str, str | None]] = [
    ("---@param s agentls.Session\nfunction M.f(s)\n  return s.title .. s.id\nend\n", None),
    (
        "---@param s agentls.Session\nfunction M.f(s)\n  return s.titel\nend\n",
        "s.titel: agentls.Session has no field 'titel'",
    ),
    ("---@param s agentls.Sesion\nfunction M.f(s)\nend\n", "agentls.Sesion is not a ---@class or ---@alias"),
    ("---@return agentls.Nope\nfunction M.f()\nend\n", "agentls.Nope is not a ---@class or ---@alias"),
    ("---@param s agentls.Session\nfunction M.f(s)\n  return s.time.created\nend\n", None),
    (
        "---@param s agentls.Session\nfunction M.f(s)\n  return s.time.updated\nend\n",
        "s.time.updated: agentls.Session has no field 'updated'",
    ),
    ("---@param s agentls.Session|nil\nfunction M.f(s)\n  return s and s.summary.files\nend\n", None),
    (
        "---@param s agentls.Session?\nlocal function f(s)\n  s.summary.lines = 1\nend\n",
        "has no field 'lines'",
    ),
    ("---@param e agentls.AgentEvent\nfunction M.f(e)\n  return e.type, e.properties\nend\n", None),
    (
        "---@param e agentls.AgentEvent\nfunction M.f(e)\n  return e.props\nend\n",
        "e.props: agentls.AgentEvent has no field 'props'",
    ),
    ("---@param x agentls.Either\nfunction M.f(x)\n  return x.content, x.title\nend\n", None),
    ("---@param x agentls.Either\nfunction M.f(x)\n  return x.nothing\nend\n", "has no field 'nothing'"),
    (
        "---@type agentls.Session\nlocal s = get()\nprint(s.id, s.nme)\n",
        "s.nme: agentls.Session has no field 'nme'",
    ),
    # Not the annotated value: another name, a string, a comment, a shadowing local, after the end.
    (
        "---@param s agentls.Session\nfunction M.f(s, t)\n"
        "  return t.whatever, 's.x' -- s.y\nend\nprint(s.z)\n",
        None,
    ),
    ("---@param s agentls.Session\nfunction M.f(s)\n  local s = {}\n  return s.anything\nend\n", None),
    ("---@param s agentls.Session[]\nfunction M.f(s)\n  return s.n\nend\n", None),
    # A public function says what it does in a --- comment (a -- comment, or none, is not one); a
    # local function need not.
    ("function M.f()\nend\n", "M.f has no --- comment (what it does)"),
    ("-- Does f.\nfunction M:f()\nend\n", "M:f has no --- comment (what it does)"),
    ("M.f = function()\nend\n", "M.f has no --- comment (what it does)"),
    ("--- Does f.\nfunction M.f()\nend\n--- Does g.\nM.g = function()\nend\n", None),
    ("local function f()\nend\nlocal g = function() end\n", None),
    # The plugin's own classes count.
    (
        "---@class agentls.Mine\n---@field a string\n\n"
        "---@param m agentls.Mine\nfunction M.f(m)\n  return m.a\nend\n",
        None,
    ),
]


@pytest.mark.parametrize(("lua", "problem"), CASES)
def test_the_plugins_annotations_against_the_types(tmp_path: Path, lua: str, problem: str | None) -> None:
    (tmp_path / "protocol_types.lua").write_text(TYPES)
    (tmp_path / "plugin.lua").write_text("local M = {}\n" + lua + "return M\n")
    found = check(tmp_path)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0], found
        assert found[0].startswith("plugin.lua:")


def test_the_plugin_as_it_is_checks_clean_and_names_protocol_types() -> None:
    plugin = Path(__file__).parents[3] / "editors" / "nvim" / "lua" / "agentls"
    assert check(plugin) == []
    annotated = "".join(p.read_text() for p in plugin.rglob("*.lua") if p.name != "protocol_types.lua")
    for name in ("agentls.AgentEvent", "agentls.Session", "agentls.Part", "agentls.EditorQuery"):
        assert name in annotated


def test_the_modules_in_folders_are_checked_against_types_in_a_folder(tmp_path: Path) -> None:
    """The plugin is grouped in folders (chat/, server/, …): all are read, a problem named by its path."""
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "protocol_types.lua").write_text(TYPES)
    (tmp_path / "chat").mkdir()
    reads = "---@param s agentls.Session\nfunction f(s)\n  return s.%s\nend\n"
    (tmp_path / "chat" / "init.lua").write_text(reads % "x")
    (tmp_path / "init.lua").write_text(reads % "id")
    assert check(tmp_path) == ["chat/init.lua:3: s.x: agentls.Session has no field 'x'"]


def test_the_command_exits_1_naming_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "protocol_types.lua").write_text(TYPES)
    (tmp_path / "plugin.lua").write_text("---@param s agentls.Session\nfunction f(s)\n  return s.x\nend\n")
    assert main([str(tmp_path)]) == 1
    assert "plugin.lua:3: s.x: agentls.Session has no field 'x'" in capsys.readouterr().err
