"""The plugin's highlight groups: default links a colour scheme can override, linked again after
:colorscheme, and the ones the transcript's tool states use; every group the plugin draws with is
one of them, set nowhere else, and listed in :h agentls-highlights."""

from __future__ import annotations

import re
from pathlib import Path

from tests.nvim.harness import Nvim

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"
LUA = PLUGIN / "lua" / "agentls"
# A group named in a statusline/winbar item (%#Group#) or as a string the plugin draws with; the
# `User` autocmds the plugin fires (AgentlsTurnDone, …) are events, not groups.
IN_BAR = re.compile(r"%#(Agentls\w+)#")
QUOTED = re.compile(r"""['"](Agentls[A-Z]\w*)['"]""")
EVENT = re.compile(r"\bpattern\s*=|\bfire\(")


def linked_groups() -> dict[str, str]:
    """``M.LINKS`` of ui/highlights.lua: group → the standard group it links to."""
    text = (LUA / "ui" / "highlights.lua").read_text()
    table = re.search(r"M\.LINKS = \{(.*?)\n\}", text, re.S)
    assert table, "M.LINKS not found in ui/highlights.lua"
    return dict(re.findall(r"^\s*(Agentls\w+) = '(\w+)'", table.group(1), re.M))


def test_the_highlight_groups_are_default_links(nvim: Nvim) -> None:
    nvim.run("highlights.lua").check()


def test_every_group_drawn_with_is_a_default_link_listed_in_the_help() -> None:
    links = linked_groups()
    assert len(links) >= 10, links
    used: dict[str, str] = {}
    set_hl = []
    for path in sorted(LUA.rglob("*.lua")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.relative_to(LUA)}:{number}"
            code = line.split("--", 1)[0] if not line.lstrip().startswith("--") else ""
            if "nvim_set_hl(" in code:
                set_hl.append((where, code))
            names = IN_BAR.findall(code) + ([] if EVENT.search(code) else QUOTED.findall(code))
            for name in names:
                used.setdefault(name, where)
    assert set_hl, "no nvim_set_hl call found: where are the groups linked?"
    assert [w for w, code in set_hl if "default = true" not in code] == [], "set without default = true"
    assert [w for w, _ in set_hl if not w.startswith("ui/highlights.lua:")] == [], "set elsewhere"
    assert {name: where for name, where in used.items() if name not in links} == {}, "drawn with, not linked"
    assert sorted(set(links) - set(used)) == [], "linked, never drawn with"
    help_text = (PLUGIN / "doc" / "agentls.txt").read_text()
    listed = dict(re.findall(r"^  (Agentls\w+)\s+(\w+)\s", help_text, re.M))
    assert listed == links, ":h agentls-highlights and ui/highlights.lua disagree"
