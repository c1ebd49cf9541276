"""Bytecode for the methods libraries write as source text at start-up, compiled once per machine.

``dataclasses`` writes ``__init__``/``__repr__``/``__eq__`` of every dataclass as text and compiles
it, ``typing`` compiles every string annotation, attrs (lsprotocol's ~550 classes) and cattrs (pygls'
converters) do the same: in every process, for the same text. Compiling is ~10% of ``agentls run``'s
CPU and a third of lsprotocol's import. ``.pyc`` files spare modules that work; this spares their
generated code: the console script installs a cache for the command it runs, in which each
compiled code object is keyed by everything that decides it (the source text, file name, mode and
``__future__`` flags), so different text, say from an upgraded library, is compiled afresh.

The cache file holds marshalled code, like ``__pycache__``, in the user's cache folder, one per
command and Python version; a damaged or unwritable file only costs the compiles.
``AGENTLS_CODE_CACHE=0`` turns it off.
"""

from __future__ import annotations
import __future__

import builtins
import functools
import importlib
import logging
import marshal
import os
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import Any

from core.cachefile import write_whole

log = logging.getLogger(__name__)

# The __future__ features a compile inherits from the code that calls it (CPython's PyCF_MASK).
FUTURE_FLAGS = functools.reduce(
    lambda flags, name: flags | getattr(__future__, name).compiler_flag, __future__.all_feature_names, 0
)
# Modules that compile generated source through the global name ``compile`` or ``exec``.
COMPILERS = {"typing": "compile", "dataclasses": "exec", "attr._make": "compile", "cattrs.gen": "compile"}

_compile = builtins.compile
_exec = builtins.exec
Key = tuple[str, str, str, int]


class CodeCache:
    """Compiled code by (source, file name, mode, flags), read from ``path`` at the first lookup."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stored: dict[Key, CodeType] | None = None
        self._used: dict[Key, CodeType] = {}
        self.compiled = 0
        self._lock = threading.Lock()

    def code(self, source: str, filename: str, mode: str, flags: int) -> CodeType:
        """The code of ``source``, from the file when it was compiled before."""
        key = (source, filename, mode, flags)
        code = self._loaded().get(key)
        if code is None:
            code = _compile(source, filename, mode, flags, True)
            self.compiled += 1
        self._used[key] = code
        return code

    def save(self) -> None:
        """Write the file when this process compiled something new (atomically; errors only logged).

        It keeps the code this process used plus what earlier ones stored, except code replaced
        under the same file name (attrs writes a per-process random hash into frozen classes'
        ``__hash__``), and all of the unused part once it outgrew the used one (code of a library
        version since replaced)."""
        if not self.compiled:
            return
        stored = self._loaded()
        table = dict(self._used)
        written = {(key[1], key[2]) for key in table if key[1] != "<string>"}
        unused = {key: code for key, code in stored.items() if key not in table and key[1:3] not in written}
        if len(unused) <= len(table):
            table.update(unused)
        try:
            write_whole(self.path, marshal.dumps(table))
        except (OSError, ValueError) as exc:  # ValueError: code marshal cannot write
            log.debug("cannot write the code cache %s: %s", self.path, exc)
            return
        self.compiled = 0

    def _loaded(self) -> dict[Key, CodeType]:
        if self._stored is None:
            with self._lock:
                if self._stored is None:
                    self._stored = _read(self.path)
        return self._stored

    # --- the stand-ins the compiling modules call -------------------------------------

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        *args: Any,
        **options: Any,
    ) -> Any:
        """``compile`` for generated source; anything else (an AST, extra options) goes through."""
        plain = type(source) is str and isinstance(filename, str) and not (args or options)
        if not plain or flags & ~FUTURE_FLAGS:
            return _compile(source, filename, mode, flags, dont_inherit, *args, **options)
        if not dont_inherit:  # what the builtin inherits: its caller's __future__ features
            flags |= sys._getframe(1).f_code.co_flags & FUTURE_FLAGS
        return self.code(source, filename, mode, flags)

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **options: Any) -> None:
        """``exec`` for generated source (``dataclasses`` always passes its namespace)."""
        caller = sys._getframe(1)
        if globals is None:  # the builtin's default is its caller's namespace, not this frame's
            globals = caller.f_globals
            locals = caller.f_locals if locals is None else locals
        if type(source) is str and not options:
            source = self.code(source, "<string>", "exec", caller.f_code.co_flags & FUTURE_FLAGS)
        _exec(source, globals, locals, **options)


def _read(path: Path) -> dict[Key, CodeType]:
    try:
        # Read whole, then unmarshal: ``marshal.load`` on a file reads each object's bytes with a
        # call of its own, which made the load 4-7x slower (serve's 2.6 MB: ~70-110 ms vs ~17).
        table = marshal.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, EOFError, ValueError, TypeError) as exc:
        log.debug("ignoring the unreadable code cache %s: %s", path, exc)
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        key: code
        for key, code in table.items()
        if isinstance(code, CodeType) and isinstance(key, tuple) and len(key) == 4
    }


_cache: CodeCache | None = None


def install(command: str) -> CodeCache | None:
    """Serve ``command``'s process from its cache file: patch the compiling modules loaded so far
    (``patch`` adds the others, once their import is due anyway)."""
    global _cache
    if os.environ.get("AGENTLS_CODE_CACHE", "1") == "0":
        return None
    from importlib.util import MAGIC_NUMBER

    from core.config.paths import cache_dir

    # The bytecode's magic number: marshalled code only loads into the Python that wrote it.
    _cache = CodeCache(cache_dir() / "code" / f"{command}-{MAGIC_NUMBER.hex()}.marshal")
    patch(*(name for name in COMPILERS if name in sys.modules or name in ("typing", "dataclasses")))
    return _cache


def patch(*modules: str) -> None:
    """Import ``modules`` and route their compiles through the cache (nothing without one)."""
    if _cache is None:
        return
    for name in modules:
        setattr(importlib.import_module(name), COMPILERS[name], getattr(_cache, COMPILERS[name]))


def save() -> None:
    """Store what this process compiled anew (at exit)."""
    if _cache is not None:
        _cache.save()
