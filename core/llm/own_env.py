"""Variables agentls sets in its own environment for the libraries it loads, kept from its children.

tiktoken finds its files only through ``TIKTOKEN_CACHE_DIR``, litellm reads its offline switches
from the environment and sets ``TIKTOKEN_CACHE_DIR`` itself when it is imported: each is a setting of
the whole process. A command a tool runs is the user's, not agentls's: it gets the value each of
these variables had before agentls (or a library it loaded) set it, or none when there was none
(``for_children``; ``core.tools.process`` builds every tool command's environment with it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

_before: dict[str, str | None] = {}  # the user's value of each variable agentls set, None: unset
_lock = threading.Lock()


def remember(*names: str) -> None:
    """Note the user's values of ``names`` before something in this process sets them (a library
    about to be imported); a name noted before keeps its first value."""
    with _lock:
        for name in names:
            _before.setdefault(name, os.environ.get(name))


def set_own(name: str, value: str, *, keep_user: bool = False) -> None:
    """Set ``name`` for this process only (children get the user's value back); ``keep_user``:
    leave a value the user set, as ``os.environ.setdefault`` would."""
    remember(name)
    with _lock:
        if keep_user and _before[name] is not None:
            return
        os.environ[name] = value


def for_children(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with every variable agentls set for itself back at the user's value, or removed."""
    with _lock:
        before = dict(_before)
    child = dict(env)
    for name, value in before.items():
        if value is None:
            child.pop(name, None)
        else:
            child[name] = value
    return child
