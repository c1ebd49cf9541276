"""The start-up code cache: generated code from the file is the code the builtins would compile,
with the same __future__ features, and a second process compiles nothing."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from agentls.codecache import FUTURE_FLAGS, CodeCache
from demo.fake_model import FakeModelServer
from tests.unit.console_run import run_agent
from tests.unit.test_cachefile import fill_the_disk

SOURCE = "def f(x: undefined_name) -> int:\n    return x + 1\n"


def same_code(a: object, b: object) -> None:
    for field in ("co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_flags"):
        assert getattr(a, field) == getattr(b, field), field


def test_code_from_the_file_is_what_compile_makes(tmp_path: Path) -> None:
    first = CodeCache(tmp_path / "c.marshal")
    code = first.compile(SOURCE, "<generated f>", "exec", 0, True)
    same_code(code, compile(SOURCE, "<generated f>", "exec", 0, True))
    assert first.compiled == 1
    first.save()
    second = CodeCache(tmp_path / "c.marshal")  # the next process
    same_code(second.compile(SOURCE, "<generated f>", "exec", 0, True), code)
    assert second.compiled == 0
    namespace: dict[str, object] = {}
    second.exec(SOURCE, namespace)
    assert namespace["f"](1) == 2  # type: ignore[operator]
    assert second.compiled == 1  # exec's file name is "<string>": another key


def test_the_callers_future_features_are_inherited_as_the_builtins_do(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "c.marshal")
    # This module has `from __future__ import annotations`: the annotation stays a string.
    namespace: dict[str, object] = {}
    cache.exec(SOURCE, namespace)
    assert namespace["f"].__annotations__ == {"x": "undefined_name", "return": "int"}
    # A caller without it (like dataclasses.py): the annotation is evaluated, and fails here.
    plain: dict[str, object] = {"cache": cache, "SOURCE": SOURCE}
    with pytest.raises(NameError):
        exec(compile("cache.exec(SOURCE, {})", "<plain caller>", "exec", 0, True), plain)
    # dont_inherit=True ignores the caller; explicit flags are kept.
    code = cache.compile(SOURCE, "<x>", "exec", 0, True)
    assert not code.co_flags & FUTURE_FLAGS
    flagged = cache.compile(SOURCE, "<x>", "exec", FUTURE_FLAGS & 0x1000000, True)
    assert flagged.co_flags & 0x1000000  # CO_FUTURE_ANNOTATIONS, asked for explicitly


def test_what_it_does_not_cache_goes_to_the_builtins(tmp_path: Path) -> None:
    import ast

    cache = CodeCache(tmp_path / "c.marshal")
    tree = cache.compile("x = 1", "<ast>", "exec", ast.PyCF_ONLY_AST)
    assert isinstance(tree, ast.Module)
    code = cache.compile(ast.parse("x = 2"), "<from ast>", "exec")
    namespace: dict[str, object] = {}
    cache.exec(code, namespace)
    assert namespace["x"] == 2 and cache.compiled == 0
    optimized = cache.compile("assert False", "<opt>", "exec", 0, True, 2)  # optimize=2: asserts gone
    cache.exec(optimized, {})
    assert cache.compiled == 0
    with pytest.raises(SyntaxError):
        cache.compile("def (", "<bad>", "exec")


def test_exec_without_a_namespace_uses_the_callers_like_the_builtin(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "c.marshal")
    namespace: dict[str, object] = {"cache": cache}
    exec("cache.exec('y = 40 + 2')", namespace)
    assert namespace["y"] == 42


def test_a_damaged_file_costs_only_the_compiles(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    for damage in (b"", b"\x00garbage", marshal.dumps([1, 2]), marshal.dumps({("a", "b"): 1})):
        path.write_bytes(damage)
        cache = CodeCache(path)
        same_code(cache.compile(SOURCE, "<f>", "exec", 0, True), compile(SOURCE, "<f>", "exec", 0, True))
        cache.save()
        assert CodeCache(path)._loaded()  # rewritten whole


def test_code_no_longer_used_is_dropped_once_it_outweighs_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    old = CodeCache(path)
    for n in range(3):
        old.compile(f"x = {n}", f"<old {n}>", "exec", 0, True)
    old.save()
    new = CodeCache(path)
    new.compile("y = 1", "<new y>", "exec", 0, True)
    new.save()
    assert len(CodeCache(path)._loaded()) == 1  # 3 unused > 1 used: a library was upgraded
    again = CodeCache(path)
    again.compile("z = 1", "<new z>", "exec", 0, True)
    again.compile("w = 1", "<new w>", "exec", 0, True)
    again.save()
    assert len(CodeCache(path)._loaded()) == 3  # 1 unused ≤ 2 used: kept


def test_code_replaced_under_its_file_name_is_dropped(tmp_path: Path) -> None:
    # attrs writes hash(<its file name>) into a frozen class's __hash__: other text in every process.
    path = tmp_path / "c.marshal"
    for seed in (1, 2, 3):
        cache = CodeCache(path)
        cache.compile(f"h = {seed}", "<attrs generated methods X>", "exec", 0, True)
        for n in range(3):
            cache.compile(f"x = {n}", "<string>", "exec", 0, True)
        cache.save()
    sources = sorted(key[0] for key in CodeCache(path)._loaded())
    assert sources == ["h = 3", "x = 0", "x = 1", "x = 2"]


def test_a_failed_write_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CodeCache(tmp_path / "code" / "c.marshal")
    cache.compile(SOURCE, "<f>", "exec", 0, True)

    fill_the_disk(monkeypatch)
    cache.save()  # logged, not raised
    assert list((tmp_path / "code").iterdir()) == []
    assert cache.compiled == 1


def test_an_unwritable_cache_folder_is_only_logged(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    cache = CodeCache(blocker / "c.marshal")
    cache.compile(SOURCE, "<f>", "exec", 0, True)
    cache.save()
    assert cache.compiled == 1  # still to be saved


def test_the_second_run_compiles_nothing(tmp_path: Path) -> None:
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        run_agent(tmp_path, model, titles)
        [cached] = (tmp_path / "cache" / "code").glob("run-*.marshal")
        written = cached.stat().st_mtime_ns
        assert len(CodeCache(cached)._loaded()) > 300  # the core's dataclasses and annotations
        run_agent(tmp_path, model, titles)
        assert cached.stat().st_mtime_ns == written  # nothing new to save: all of it came from the file
        run_agent(tmp_path / "off", model, titles, AGENTLS_CODE_CACHE="0")
        assert not (tmp_path / "off" / "cache" / "code").exists()
