"""How many leading words name what a command does: ``git checkout`` is 2, ``npm run build`` is 3.

An "always" approval of a bash command covers that prefix plus ` *`, so approving ``git checkout
main`` approves other checkouts but not ``git push``. The longest known prefix decides; an unknown
command counts one word. A wrapper (``sudo -u bob``, ``timeout 5`` …: the table of
``core.permission.wrappers``) adds its words as written to the prefix of the command it runs, so
approving ``timeout 5 npm test`` approves ``timeout 5 npm test *``, not every ``timeout``.
"""

from __future__ import annotations

import re

from core.permission.command import plain_word
from core.permission.wrapped import Wrapped
from core.permission.wrappers import unwrap

# prefix -> number of words that identify the action. Longest matching prefix wins.
ARITY: dict[str, int] = {
    # version control
    "git": 2,
    "git remote": 3,
    "git stash": 3,
    "git submodule": 3,
    "git worktree": 3,
    "hg": 2,
    "svn": 2,
    "gh": 3,
    # JavaScript
    "npm": 2,
    "npm run": 3,
    "npm exec": 3,
    "pnpm": 2,
    "pnpm run": 3,
    "pnpm exec": 3,
    "yarn": 2,
    "yarn run": 3,
    "bun": 2,
    "bun run": 3,
    "bunx": 2,
    "npx": 2,
    "deno": 2,
    "deno task": 3,
    "node": 2,
    "tsc": 1,
    # Python
    "pip": 2,
    "pip3": 2,
    "python -m": 3,
    "python3 -m": 3,
    "uv": 2,
    "uv pip": 3,
    "uv run": 3,
    "poetry": 2,
    "poetry run": 3,
    "pytest": 1,
    "ruff": 2,
    "mypy": 1,
    # other toolchains
    "cargo": 2,
    "go": 2,
    "go mod": 3,
    "rustup": 2,
    "make": 2,
    "cmake": 2,
    "mvn": 2,
    "gradle": 2,
    "dotnet": 2,
    "bundle": 2,
    "bundle exec": 3,
    "rails": 2,
    "composer": 2,
    "mix": 2,
    # containers and cloud
    "docker": 2,
    "docker compose": 3,
    "docker container": 3,
    "docker image": 3,
    "docker network": 3,
    "docker volume": 3,
    "docker-compose": 2,
    "podman": 2,
    "kubectl": 2,
    "kubectl config": 3,
    "helm": 2,
    "terraform": 2,
    "aws": 3,
    "gcloud": 3,
    "az": 3,
    # system
    "systemctl": 2,
    "apt": 2,
    "apt-get": 2,
    "brew": 2,
}

# The most words a known prefix has: longer prefixes are never looked up (a command of thousands
# of words must not cost thousands of joins).
_LONGEST = max(len(prefix.split()) for prefix in ARITY)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def arity(words: list[str]) -> int:
    """How many of ``words`` form the command's identifying prefix."""
    if not words:
        return 0
    inner = _wrapped(words)
    if inner:  # the wrapper as written (``timeout 5``, ``sudo -u bob``), then the command's prefix
        lead = next((i for i, word in enumerate(inner) if not _ASSIGNMENT.match(word)), len(inner))
        return len(words) - len(inner) + lead + arity(inner[lead:])  # env A=1 make: A=1 stays
    best = 1
    for size in range(1, min(len(words), _LONGEST) + 1):
        known = ARITY.get(" ".join(words[:size]))
        if known is not None:
            best = known
    return min(best, len(words))


def _wrapped(words: list[str]) -> list[str]:
    """The command a wrapper (the table in ``core.permission.wrappers``) runs; xargs, which adds
    arguments of its own, keeps its command word too. Empty when it is no wrapper."""
    name, args = words[0].rsplit("/", 1)[-1], words[1:]
    if name == "xargs":
        return args if args and not args[0].startswith("-") else []
    wrapped = unwrap(name, [plain_word(word) for word in args])
    if not isinstance(wrapped, Wrapped) or wrapped.script is not None or not wrapped.words:
        return []
    return [word.raw for word in wrapped.words]


def always_pattern(words: list[str]) -> str:
    """The "always" pattern for a command: its identifying prefix followed by `` *``."""
    return " ".join(words[: arity(words)]) + " *"
