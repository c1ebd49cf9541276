"""The tools' JSON schemas kept from one process to the next, in the user's cache folder.

pydantic makes a model's JSON schema anew in every process: 32 M instructions (~10 ms) for the 13
built-in tools, on the way to ``agentls run``'s first request. The console script installs this
cache for the command it runs; used in-process (the tests, a host that embeds the core), the core
makes its schemas as before and writes nothing.

A stored schema is used only under the key it was made with, which takes in all that decides it:
Python's, pydantic's and pydantic-core's versions; the model's core schema, pydantic's compiled
form of its fields (names, types, constraints, descriptions, defaults), so that a value taken from
any module counts; the docstring and ``model_config`` of every class it names and of their bases;
and, as a ``.pyc`` checks its source, the path, mtime and size of the files that define those
classes and the code that turns the schema into text. A model whose schema runs code of its own
(a schema hook, a callable ``json_schema_extra``) is left out, since what that code reads cannot be
keyed, and so is one whose source file cannot be read. A damaged or unwritable cache file only
costs the work.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cachefile import write_whole

if TYPE_CHECKING:
    from pydantic import BaseModel

log = logging.getLogger(__name__)

Entry = dict[str, str]  # {"key": ..., "schema": ...}
_PLAIN = (str, int, float, bool, type(None))  # values whose repr is the same in every process
_ID = re.compile(r":(\d+)")
# Methods through which a class brings code of its own to the making of its JSON schema.
_SCHEMA_HOOKS = ("__get_pydantic_json_schema__", "model_json_schema")


class SchemaCache:
    """Schema texts by model, read from ``path`` at the first lookup, written by ``save``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stored: dict[str, Entry] | None = None
        self._new: dict[str, Entry] = {}
        # What key() learns of a class or a file, once per process as the classes do not change.
        self._classes: dict[type, str | None] = {}
        self._files: dict[str, str | None] = {}
        self._versions: str | None = None
        self._lock = threading.Lock()

    def text(self, model: type[BaseModel], make: Callable[[type[BaseModel]], str]) -> str:
        """``make(model)``, from the file when the same model was made there under the same key."""
        name = f"{model.__module__}.{model.__qualname__}"
        key = self.key(model, make)
        if key is not None:
            entry = self._loaded().get(name)
            if entry is not None and entry["key"] == key:
                return entry["schema"]
        text = make(model)
        if key is not None:
            self._new[name] = {"key": key, "schema": text}
        return text

    def key(self, model: type[BaseModel], make: Callable[[type[BaseModel]], str]) -> str | None:
        """A digest of everything that decides ``make(model)``; None when part of it is out of reach."""
        import hashlib  # here: loaded with pydantic anyway (pydantic.types → secrets → hmac)

        code = getattr(make, "__code__", None)
        schema = _Description()
        if code is None or not schema.add_model(model):
            return None
        found = {self._file(code.co_filename), *(self._class(cls) for cls in schema.classes)}
        described = sorted(text for text in found if text is not None)
        if len(described) < len(found):
            return None
        text = "\n".join([self._versions or self._read_versions(), *schema.lines, *described])
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self) -> None:
        """Write the file when this process made a schema it did not find there (atomically;
        errors only logged). Entries of models this process did not use are kept."""
        if not self._new:
            return
        entries = {**self._loaded(), **self._new}
        try:
            write_whole(self.path, json.dumps({"schemas": entries}).encode())
        except OSError as exc:
            log.debug("cannot write the schema cache %s: %s", self.path, exc)
            return
        self._stored = entries
        self._new = {}

    def _loaded(self) -> dict[str, Entry]:
        if self._stored is None:
            with self._lock:
                if self._stored is None:
                    self._stored = _read(self.path)
        return self._stored

    def _read_versions(self) -> str:
        import pydantic.version
        import pydantic_core

        self._versions = (
            f"python {sys.version}\npydantic {pydantic.version.VERSION}\n"
            f"pydantic-core {pydantic_core.__version__}"
        )
        return self._versions

    def _class(self, cls: type) -> str | None:
        """What of ``cls`` can change a schema: its docstring, its config and its source file."""
        if cls not in self._classes:
            self._classes[cls] = self._describe_class(cls)
        return self._classes[cls]

    def _describe_class(self, cls: type) -> str | None:
        name = f"class {cls.__module__}.{cls.__qualname__}"
        if _from_pydantic(cls):
            return name  # BaseModel: pydantic's version covers it
        own = vars(cls)
        config = _Description()
        if any(hook in own for hook in _SCHEMA_HOOKS) or not config.add(own.get("model_config", {})):
            return None  # code of its own (a callable json_schema_extra, say)
        if config.classes:
            return None  # a class given as a setting: more code
        if cls.__module__ in sys.builtin_module_names:
            source: str | None = "built in"  # Python's version covers it
        else:
            path = getattr(sys.modules.get(cls.__module__), "__file__", None)
            source = self._file(path) if isinstance(path, str) else None
        if source is None:
            return None
        return "\n".join([f"{name} {cls.__doc__!r}", *config.lines, source])

    def _file(self, path: str) -> str | None:
        """``path`` with its mtime and size, as a ``.pyc`` checks its source; None when it cannot be read."""
        if path not in self._files:
            try:
                stat = os.stat(path)
            except OSError:
                self._files[path] = None
            else:
                self._files[path] = f"file {path} {stat.st_mtime_ns} {stat.st_size}"
        return self._files[path]


class _Description:
    """Data from pydantic (a core schema, a config) as lines of text that are the same in every
    process, and the classes it names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.classes: dict[type, None] = {}  # in the order met, which numbers them (add_model)
        self._refs: list[int] = []  # the lines that hold pydantic's refs

    def add_model(self, model: type[BaseModel]) -> bool:
        """Describe ``model``'s core schema, the classes it names and all their bases."""
        if not self.add(model.__pydantic_core_schema__):
            return False
        self.classes[model] = None
        for cls in list(self.classes):
            self.classes.update(dict.fromkeys(cls.__mro__))
        # A ref ends in the id() of a class, another in every process: the class's number instead.
        numbers = {str(id(cls)): n for n, cls in enumerate(self.classes)}
        for line in self._refs:
            pieces: list[str | int] = _ID.split(self.lines[line])
            pieces[1::2] = [numbers.get(str(ident), f":{ident}") for ident in pieces[1::2]]
            self.lines[line] = f"ref {pieces!r}"
        return True

    def add(self, node: Any) -> bool:
        """Append ``node``'s data; False when it holds something else (code, or a value whose text
        may differ between processes)."""
        return _add(node, self.lines, self._refs, self.classes)


def _add(node: Any, lines: list[str], refs: list[int], classes: dict[type, None]) -> bool:
    # A function of its own, not a method: the walk is most of the key's cost.
    kind = type(node)
    if kind is dict:
        lines.append("{")
        for name, value in node.items():
            if type(value) not in _PLAIN:
                lines.append(repr(name))
                if not _add(value, lines, refs, classes):
                    return False
            elif (name == "ref" or name == "schema_ref") and type(value) is str:
                lines.append(repr(name))
                refs.append(len(lines))
                lines.append(value)
            else:  # a leaf in place, without a call: most of them are
                lines.append(f"{name!r} {value!r}")
        lines.append("}")
    elif kind is list or kind is tuple:
        lines.append("[")
        for item in node:
            if not _add(item, lines, refs, classes):
                return False
        lines.append("]")
    elif kind in _PLAIN:
        lines.append(repr(node))
    elif isinstance(node, type):
        lines.append(f"class {node.__module__}.{node.__qualname__}")
        classes[node] = None
    else:
        # pydantic's own schema function, bound to the model: covered by pydantic's version.
        function = getattr(node, "__func__", None)
        owner = getattr(node, "__self__", None)
        if function is None or not _from_pydantic(function) or not isinstance(owner, type):
            return False
        lines.append(f"method {function.__qualname__} of {owner.__module__}.{owner.__qualname__}")
        classes[owner] = None
    return True


def _from_pydantic(code: object) -> bool:
    return str(getattr(code, "__module__", "")).partition(".")[0] == "pydantic"


def _read(path: Path) -> dict[str, Entry]:
    try:
        stored = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        log.debug("ignoring the unreadable schema cache %s: %s", path, exc)
        return {}
    schemas = stored.get("schemas") if isinstance(stored, dict) else None
    if not isinstance(schemas, dict):
        return {}
    return {
        name: entry
        for name, entry in schemas.items()
        if isinstance(entry, dict)
        and isinstance(entry.get("key"), str)
        and isinstance(entry.get("schema"), str)
    }


_cache: SchemaCache | None = None


def install() -> SchemaCache:
    """Keep this process's tool schemas in the user's cache folder (the console script's call)."""
    global _cache
    from core.config.paths import cache_dir

    _cache = SchemaCache(cache_dir() / "tool-schemas.json")
    return _cache


def schema_text(model: type[BaseModel], make: Callable[[type[BaseModel]], str]) -> str:
    """``make(model)``, through the installed cache when there is one."""
    return make(model) if _cache is None else _cache.text(model, make)


def save() -> None:
    """Store the schemas this process made anew (at exit)."""
    if _cache is not None:
        _cache.save()
