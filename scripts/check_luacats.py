#!/usr/bin/env python3
"""The Neovim plugin's LuaCATS annotations checked against the protocol's generated types.

lua-language-server's ``--check`` would do this, but no registry this project installs from ships
it (not PyPI, npm or Debian), and a binary cannot be downloaded here. So this checks the part that
matters for the protocol, in the same terms:

1. every ``agentls.X`` named by ``---@param``, ``---@type``, ``---@return`` or ``---@field`` in the
   plugin is a ``---@class`` or ``---@alias`` (of ``protocol_types.lua`` or the plugin itself);
2. every field read or written through a name annotated with such a type — a function's parameter
   (``---@param``) in that function's body, or a local (``---@type``) in its block, including paths
   like ``p.info.id`` — is a field of that type (of any member, for a union);
3. every public function of a module (``function M.f``, ``function M:f``, ``M.f = function``) has
   a ``---`` comment right above it — its one-line description, with ``---@param``/``---@return``
   where they say more — which is what lua-language-server shows for it.

    scripts/check_luacats.py [PLUGIN_LUA_DIR]    exit 1 naming file:line and the unknown name
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "editors" / "nvim" / "lua" / "agentls"
NAME = re.compile(r"agentls\.[A-Za-z_][\w.]*[A-Za-z_0-9]")
STRING = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")
PUBLIC = re.compile(r"^(?:function\s+(M[.:][\w.]+)\s*\(|(M\.[\w.]+)\s*=\s*function\s*\()")
FUNCTION = re.compile(
    r"^\s*(?:local\s+)?(?:function\s+[\w.:]+\s*\(([^)]*)\)|[\w.]+\s*=\s*function\s*\(([^)]*)\))"
)


@dataclass
class Types:
    """The classes (field → type) and aliases (members) the annotations define."""

    classes: dict[str, dict[str, str]] = field(default_factory=dict)
    aliases: dict[str, list[str]] = field(default_factory=dict)

    def known(self, name: str) -> bool:
        return name in self.classes or name in self.aliases


def split_type(text: str) -> tuple[str, str]:
    """The leading type of ``text`` (brackets balanced, so ``{ a: T, b: U }`` is one) and the rest."""
    depth = 0
    for i, char in enumerate(text):
        if char in "{<([":
            depth += 1
        elif char in "}>)]":
            depth -= 1
        elif (
            char.isspace()
            and depth == 0
            and not text[:i].endswith((",", ":", "|"))
            and not text[i:].lstrip().startswith("|")
        ):
            return text[:i], text[i:].strip()
    return text, ""


def members(kind: str) -> list[str]:
    """The top-level members of a union type."""
    out, depth, start = [], 0, 0
    for i, char in enumerate(kind):
        if char in "{<([":
            depth += 1
        elif char in "}>)]":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(kind[start:i].strip())
            start = i + 1
    out.append(kind[start:].strip())
    return [m for m in out if m]


def inline_fields(kind: str) -> dict[str, str]:
    """The fields of an inline table type ``{ a: T, b?: U }``."""
    body, out = kind.strip()[1:-1], {}
    for entry in members_by(body, ","):
        name, _, value = entry.partition(":")
        out[name.strip().rstrip("?")] = value.strip()
    return out


def members_by(text: str, separator: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "{<([":
            depth += 1
        elif char in "}>)]":
            depth -= 1
        elif char == separator and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [m.strip() for m in out if m.strip()]


def read_types(paths: list[Path]) -> Types:
    """Every ``---@class``/``---@field`` and ``---@alias``/``---|`` in ``paths``."""
    types = Types()
    for path in paths:
        current: dict[str, str] | None = None
        alias: list[str] | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if m := re.match(r"^---@class\s+(agentls\.[\w.]+)", line):
                current, alias = types.classes.setdefault(m.group(1), {}), None
            elif (m := re.match(r"^---@field\s+([A-Za-z_]\w*)\??\s+(.*)$", line)) and current is not None:
                current[m.group(1)] = split_type(m.group(2))[0]
            elif m := re.match(r"^---@alias\s+(agentls\.[\w.]+)\s*(.*)$", line):
                alias = types.aliases.setdefault(m.group(1), [])
                current = None
                if m.group(2):
                    alias += members(split_type(m.group(2))[0])
            elif (m := re.match(r"^---\|\s*(.*)$", line)) and alias is not None:
                alias += members(split_type(m.group(1))[0])
            elif not line.startswith("---"):
                current = alias = None
    return types


def shapes(kind: str, types: Types, seen: frozenset[str] = frozenset()) -> list[dict[str, str]] | None:
    """The field tables a value of ``kind`` may be; None when it is not one of ours (unchecked)."""
    out: list[dict[str, str]] = []
    for member in members(kind.rstrip("?")):
        if member == "nil":
            continue
        if member.startswith("{"):
            out.append(inline_fields(member))
        elif member in types.classes:
            out.append(types.classes[member])
        elif member in types.aliases and member not in seen:
            inner = shapes("|".join(types.aliases[member]), types, seen | {member})
            if inner is None:
                return None
            out += inner
        else:
            return None  # a string, an array, table<…>, any: not a table of known fields
    return out


def code(line: str) -> str:
    """``line`` without its strings and its comment."""
    return STRING.sub('""', line).split("--", 1)[0]


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def scope_of_function(lines: list[str], start: int) -> range:
    """The body of the function defined on ``lines[start]``: up to its ``end`` at the same indent."""
    own = indent(lines[start])
    for i in range(start + 1, len(lines)):
        if lines[i].strip().startswith("end") and indent(lines[i]) == own:
            return range(start + 1, i)
    return range(start + 1, len(lines))


def scope_of_local(lines: list[str], start: int) -> range:
    """The rest of the block a local declared on ``lines[start]`` lives in."""
    own = indent(lines[start])
    for i in range(start + 1, len(lines)):
        if lines[i].strip() and indent(lines[i]) < own:
            return range(start + 1, i)
    return range(start + 1, len(lines))


def check_reads(where: str, lines: list[str], scope: range, name: str, kind: str, types: Types) -> list[str]:
    """Each ``name.a.b`` in ``scope`` whose fields the type does not have."""
    problems = []
    access = re.compile(rf"(?<![\w.:]){re.escape(name)}((?:\.[A-Za-z_]\w*)+)")
    shadow = re.compile(
        rf"\blocal\s+(?:[\w\s,]*,\s*)?{re.escape(name)}\b|\bfor\s+[\w\s,]*\b{re.escape(name)}\b"
    )
    for i in scope:
        text = code(lines[i])
        if shadow.search(text):
            break
        for match in access.finditer(text):
            current = kind
            for part in match.group(1).split(".")[1:]:
                found = shapes(current, types)
                if found is None:
                    break
                having = [table[part] for table in found if part in table]
                if not having:
                    problems.append(f"{where}:{i + 1}: {name}{match.group(1)}: {kind} has no field {part!r}")
                    break
                current = "|".join(having)
    return problems


def check_file(path: Path, types: Types, where: str) -> list[str]:
    """The unknown type names and fields of one plugin file, named ``where`` in the problems."""
    lines = path.read_text(encoding="utf-8").splitlines()
    problems = []
    params: dict[str, str] = {}
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("---@"):
            for name in NAME.findall(stripped):
                if not types.known(name) and not stripped.startswith(("---@class", "---@alias")):
                    problems.append(f"{where}:{i + 1}: {name} is not a ---@class or ---@alias")
        if m := re.match(r"^---@param\s+([A-Za-z_]\w*)\??\s+(.*)$", stripped):
            params[m.group(1)] = split_type(m.group(2))[0]
            continue
        if m := re.match(r"^---@type\s+(.*)$", stripped):
            kind = split_type(m.group(1))[0]
            declared = re.match(r"^\s*local\s+([A-Za-z_]\w*)", lines[i + 1]) if i + 1 < len(lines) else None
            if declared and "agentls." in kind:
                scope = scope_of_local(lines, i + 1)
                problems += check_reads(where, lines, scope, declared.group(1), kind, types)
            continue
        if stripped.startswith("---"):
            continue
        if (m := PUBLIC.match(line)) and not (i > 0 and lines[i - 1].startswith("---")):
            problems.append(f"{where}:{i + 1}: {m.group(1) or m.group(2)} has no --- comment (what it does)")
        if params and (m := FUNCTION.match(line)):
            names = [n.strip() for n in (m.group(1) or m.group(2) or "").split(",")]
            scope = scope_of_function(lines, i)
            for name, kind in params.items():
                if name in names and "agentls." in kind:
                    problems += check_reads(where, lines, scope, name, kind, types)
        params = {}
    return problems


def check(plugin: Path) -> list[str]:
    """Every problem in the plugin's Lua files, its folders' included (named by their path in it)."""
    files = sorted(plugin.rglob("*.lua"))
    types = read_types(files)
    problems = []
    for path in files:
        if path.name != "protocol_types.lua":
            problems += check_file(path, types, path.relative_to(plugin).as_posix())
    return problems


def main(argv: list[str]) -> int:
    plugin = Path(argv[0]) if argv else PLUGIN
    problems = check(plugin)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(
            f"{len(problems)} LuaCATS problem(s): name a type of protocol_types.lua (scripts/gen_protocol "
            "writes it from the server's protocol), read only the fields it has, and say in a --- comment "
            "what each public function does",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
