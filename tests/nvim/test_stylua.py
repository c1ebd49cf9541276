"""The Neovim plugin's Lua tooling: StyLua (its WebAssembly build from npm, run by
editors/nvim/tooling/stylua.mjs) checks and formats as editors/nvim/stylua.toml says, a bad config
or unparsable Lua is an error naming it, and .luarc.json is valid for lua-language-server."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

TOOLING = Path(__file__).resolve().parents[2] / "editors" / "nvim" / "tooling"
PLUGIN = TOOLING.parent


@pytest.fixture(scope="module")
def stylua() -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm come from scripts/tools"
    if not (TOOLING / "node_modules" / "@johnnymorganz" / "stylua").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLING, check=True, capture_output=True)
    return [node, str(TOOLING / "stylua.mjs")]


def run(stylua: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*stylua, *args], capture_output=True, text=True, timeout=120)


def test_the_plugin_is_formatted(stylua: list[str]) -> None:
    done = run(stylua, "--check")
    assert done.returncode == 0, done.stderr


def test_check_names_an_unformatted_file_and_formatting_fixes_it(stylua: list[str], tmp_path: Path) -> None:
    lua = tmp_path / "x.lua"
    lua.write_text('local t = {a=1,b="two"}\nreturn t\n')
    done = run(stylua, "--check", str(tmp_path))
    assert done.returncode == 1 and "x.lua" in done.stderr, done
    assert run(stylua, str(tmp_path)).returncode == 0
    assert lua.read_text() == "local t = { a = 1, b = 'two' }\nreturn t\n"
    assert run(stylua, "--check", str(tmp_path)).returncode == 0


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("colum_width = 80", "unknown key colum_width"),
        ('quote_style = "Single"', "quote_style must be one of"),
        ('column_width = "80"', "column_width must be an integer"),
        ("[sort_requires]", "sections are not supported"),
    ],
)
def test_a_bad_config_is_an_error_naming_the_line(
    stylua: list[str], tmp_path: Path, line: str, said: str
) -> None:
    config = tmp_path / "stylua.toml"
    config.write_text(f"indent_width = 2\n{line}\n")
    (tmp_path / "x.lua").write_text("return 1\n")
    done = run(stylua, "--check", "--config", str(config), str(tmp_path))
    assert done.returncode == 2 and said in done.stderr and "stylua.toml:2" in done.stderr, done


def test_lua_stylua_cannot_parse_is_an_error_naming_the_file(stylua: list[str], tmp_path: Path) -> None:
    (tmp_path / "broken.lua").write_text("local = = 1\n")
    done = run(stylua, "--check", str(tmp_path))
    assert done.returncode == 2 and "broken.lua" in done.stderr, done


def test_the_lua_language_server_config_is_json_for_luajit_and_vim() -> None:
    luarc = json.loads((PLUGIN / ".luarc.json").read_text())
    assert luarc["runtime"]["version"] == "LuaJIT"
    assert "vim" in luarc["diagnostics"]["globals"]
