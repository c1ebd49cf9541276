"""The tool schemas kept from one process to the next: a later process reads them back without
pydantic making them, and whatever decides a schema (a source file, a value from another module,
code of the model's own) makes it anew or keeps it out."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import GenerateJsonSchema

from core.tools import schema_cache
from core.tools.base import ToolParams
from core.tools.question import QuestionParams
from core.tools.registry import builtin_registry
from core.tools.schema import _make_text, tool_parameters_schema
from core.tools.schema_cache import SchemaCache
from core.tools.skill import SkillParams
from core.tools.task import TaskParams
from core.tools.todo import TodoReadParams, TodoWriteParams
from core.tools.webfetch import WebFetchParams
from demo.fake_model import FakeModelServer
from tests.unit.console_run import run_agent
from tests.unit.test_cachefile import fill_the_disk

BUILT_IN = [
    *(tool.Params for tool in builtin_registry().all()),
    TodoWriteParams,
    TodoReadParams,
    QuestionParams,
    SkillParams,
    TaskParams,
    WebFetchParams,
]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The models pydantic makes a JSON schema of, by name, from now on."""
    names: list[str] = []
    real = GenerateJsonSchema.generate

    def counting(self: GenerateJsonSchema, schema: Any, mode: Any = "validation") -> Any:
        names.append(schema["cls"].__name__)
        return real(self, schema, mode)

    monkeypatch.setattr(GenerateJsonSchema, "generate", counting)
    return names


@pytest.fixture
def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], ModuleType]:
    """Write a module into a folder of the test's own and import it (again, when it was before)."""
    folder = tmp_path / "modules"
    folder.mkdir()
    prefix = f"schema_cache_{os.getpid()}_{tmp_path.name}_"

    def load(name: str, source: str | None = None) -> ModuleType:
        path = folder / f"{name}.py"
        if source is not None:
            path.write_text(source)
        spec = importlib.util.spec_from_file_location(prefix + name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, prefix + name, module)
        spec.loader.exec_module(module)
        return module

    return load


def texts(cache: SchemaCache, models: list[type[BaseModel]]) -> list[str]:
    return [cache.text(model, _make_text) for model in models]


def test_a_later_process_reads_every_built_in_schema_back_as_pydantic_made_it(
    tmp_path: Path, made: list[str]
) -> None:
    path = tmp_path / "schemas.json"
    first = SchemaCache(path)
    written = texts(first, BUILT_IN)
    assert len(made) == len(BUILT_IN) == 13
    first.save()
    made.clear()
    assert texts(SchemaCache(path), BUILT_IN) == written  # the next process
    assert made == []
    assert written == [_make_text(model) for model in BUILT_IN]  # what pydantic makes, cleaned


class Inner(BaseModel):
    name: str = Field(description="A name")


def fresh_params() -> type[BaseModel]:
    """The same model as a new class object, as another process would have it (another id())."""

    class Fresh(ToolParams):
        path: str = Field(description="Where")
        items: list[Inner] = Field(description="Things")

    return Fresh


def test_tool_schemas_go_through_the_installed_cache(
    tmp_path: Path, made: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema_cache, "_cache", SchemaCache(tmp_path / "schemas.json"))
    first = tool_parameters_schema(fresh_params())
    schema_cache.save()
    assert made == ["Fresh"]
    monkeypatch.setattr(schema_cache, "_cache", SchemaCache(tmp_path / "schemas.json"))
    assert tool_parameters_schema(fresh_params()) == first
    assert made == ["Fresh"]
    assert first["properties"]["items"]["items"]["properties"]["name"]["description"] == "A name"


def test_nothing_is_kept_without_an_installed_cache(
    tmp_path: Path, made: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema_cache, "_cache", None)
    monkeypatch.setenv("AGENTLS_CACHE_DIR", str(tmp_path / "cache"))
    tool_parameters_schema(fresh_params())
    schema_cache.save()
    assert made == ["Fresh"]
    assert not (tmp_path / "cache").exists()


MODULES = {
    "base": "from pydantic import BaseModel, ConfigDict\n\n"
    "class Base(BaseModel):\n    model_config = ConfigDict(extra='forbid')\n",
    "inner": "from pydantic import BaseModel\n\nclass Part(BaseModel):\n    size: int\n",
    "params": "from pydantic import Field\n\n"
    "from {prefix}base import Base\nfrom {prefix}inner import Part\n\n"
    "class Params(Base):\n    parts: list[Part] = Field(description='The parts')\n",
}


@pytest.mark.parametrize("changed", ["base", "inner", "params"])
@pytest.mark.parametrize("how", ["mtime", "size"])
def test_a_changed_source_file_makes_the_schema_anew(
    tmp_path: Path, made: list[str], load: Callable[..., ModuleType], changed: str, how: str
) -> None:
    # The model's own file, its base class's, a nested model's.
    prefix = load("base", MODULES["base"]).__name__.removesuffix("base")
    load("inner", MODULES["inner"])
    params = load("params", MODULES["params"].format(prefix=prefix)).Params
    path = tmp_path / "schemas.json"
    cache = SchemaCache(path)
    text = cache.text(params, _make_text)
    cache.save()
    assert texts(SchemaCache(path), [params]) == [text] and made == ["Params"]

    source = tmp_path / "modules" / f"{changed}.py"
    if how == "mtime":
        stat = source.stat()
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    else:
        with source.open("a") as out:
            out.write("# edited\n")
    assert texts(SchemaCache(path), [params]) == [text]
    assert made == ["Params", "Params"]


def test_a_value_from_another_module_is_part_of_the_key(
    tmp_path: Path, made: list[str], load: Callable[..., ModuleType]
) -> None:
    # The model's file stays as it is: only the text it imports changes.
    words = load("words", "TEXT = 'old words'\n")
    model_source = (
        f"from pydantic import BaseModel, Field\nfrom {words.__name__} import TEXT\n\n"
        "class Described(BaseModel):\n    what: str = Field(description=TEXT)\n"
    )
    path = tmp_path / "schemas.json"
    cache = SchemaCache(path)
    assert "old words" in cache.text(load("described", model_source).Described, _make_text)
    cache.save()
    words.TEXT = "new words"
    again = load("described").Described  # the same file, imported anew
    assert "new words" in SchemaCache(path).text(again, _make_text)
    assert made == ["Described", "Described"]


class HookedParams(BaseModel):
    what: str

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> Any:
        return {**handler(core_schema), "examples": [{"what": "x"}]}


class OverridingParams(BaseModel):
    what: str

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**super().model_json_schema(*args, **kwargs), "examples": [{"what": "x"}]}


def extra(schema: dict[str, Any]) -> None:
    schema["examples"] = [{"what": "x"}]


class ExtraConfigParams(BaseModel):
    model_config = ConfigDict(json_schema_extra=extra)
    what: str


class ExtraFieldParams(BaseModel):
    what: str = Field(json_schema_extra=extra)


@pytest.mark.parametrize("model", [HookedParams, OverridingParams, ExtraConfigParams, ExtraFieldParams])
def test_a_model_whose_schema_runs_code_of_its_own_is_not_kept(
    tmp_path: Path, made: list[str], model: type[BaseModel]
) -> None:
    cache = SchemaCache(tmp_path / "schemas.json")
    assert cache.key(model, _make_text) is None
    assert cache.text(model, _make_text) == _make_text(model)
    assert '"examples"' in cache.text(model, _make_text)
    cache.save()
    assert not (tmp_path / "schemas.json").exists()


def test_a_model_whose_source_file_cannot_be_read_is_not_kept(
    tmp_path: Path, made: list[str], load: Callable[..., ModuleType]
) -> None:
    module = load("gone", "from pydantic import BaseModel\n\nclass Gone(BaseModel):\n    what: str\n")
    (tmp_path / "modules" / "gone.py").unlink()
    cache = SchemaCache(tmp_path / "schemas.json")
    assert cache.key(module.Gone, _make_text) is None
    assert cache.text(module.Gone, _make_text) == _make_text(module.Gone)
    cache.save()
    assert not (tmp_path / "schemas.json").exists()


DAMAGE = [
    b"",
    b"\x00garbage",
    b"\xff\xfe not utf-8",
    b'{"schemas": {"x": ',
    b"[1, 2]",
    b'{"schemas": 3}',
    b'{"schemas": {"tests.unit.tools.test_schema_cache.Inner": {"key": 1, "schema": 2}}}',
    b'{"schemas": {"tests.unit.tools.test_schema_cache.Inner": {"key": "stale", "schema": "{}"}}}',
]


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_file_costs_only_the_work_and_is_rewritten(
    tmp_path: Path, made: list[str], damage: bytes
) -> None:
    path = tmp_path / "schemas.json"
    path.write_bytes(damage)
    cache = SchemaCache(path)
    assert cache.text(Inner, _make_text) == _make_text(Inner)
    cache.save()
    made.clear()
    assert texts(SchemaCache(path), [Inner]) == [_make_text(Inner)]
    assert made == ["Inner"]  # only the comparison's own


def test_a_process_that_made_nothing_new_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "schemas.json"
    first = SchemaCache(path)
    texts(first, [Inner])
    first.save()
    written = path.stat()
    second = SchemaCache(path)
    texts(second, [Inner])
    second.save()
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)


def test_schemas_another_process_stored_are_kept(tmp_path: Path, made: list[str]) -> None:
    path = tmp_path / "schemas.json"
    first = SchemaCache(path)
    texts(first, [Inner])
    first.save()
    second = SchemaCache(path)
    texts(second, [TodoReadParams])
    second.save()
    made.clear()
    texts(SchemaCache(path), [Inner, TodoReadParams])
    assert made == []


def test_an_unwritable_cache_folder_only_costs_the_work(tmp_path: Path, made: list[str]) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder should be")
    cache = SchemaCache(blocker / "schemas.json")
    assert cache.text(Inner, _make_text) == _make_text(Inner)
    cache.save()  # logged only
    blocker.unlink()
    cache.save()  # what it made is still to be saved
    made.clear()
    texts(SchemaCache(blocker / "schemas.json"), [Inner])
    assert made == []


def test_a_failed_write_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = SchemaCache(tmp_path / "cache" / "schemas.json")
    texts(cache, [Inner])

    fill_the_disk(monkeypatch)
    cache.save()  # logged, not raised
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.fixture
def servers() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        yield model, titles


def test_the_console_script_keeps_them_and_its_next_run_makes_none(
    tmp_path: Path, servers: tuple[FakeModelServer, FakeModelServer]
) -> None:
    run_agent(tmp_path, *servers)
    stored = tmp_path / "cache" / "tool-schemas.json"
    written = stored.stat()
    names = {f"{model.__module__}.{model.__qualname__}" for model in BUILT_IN}
    assert set(json.loads(stored.read_text())["schemas"]) == names
    run_agent(tmp_path, *servers)  # keyed alike in another process: nothing new to write
    assert (stored.stat().st_ino, stored.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
