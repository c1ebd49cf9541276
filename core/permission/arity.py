"""How many leading words name what a command does: ``git checkout`` is 2, ``npm run build`` is 3.

An "always" approval of a bash command covers that prefix plus ` *`, so approving ``git checkout
main`` approves other checkouts but not ``git push``. The longest known prefix decides; an unknown
command counts one word. Wrappers (``sudo``, ``env`` …) add their own word to the wrapped command's.
"""

from __future__ import annotations

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

# Commands that run another command given as their arguments.
WRAPPERS = frozenset({"sudo", "doas", "env", "nohup", "time", "command", "exec", "xargs", "nice"})


# The most words a known prefix has: longer prefixes are never looked up (a command of thousands
# of words must not cost thousands of joins).
_LONGEST = max(len(prefix.split()) for prefix in ARITY)


def arity(words: list[str]) -> int:
    """How many of ``words`` form the command's identifying prefix."""
    if not words:
        return 0
    if words[0] in WRAPPERS and len(words) > 1 and not words[1].startswith("-"):
        return 1 + arity(words[1:])
    best = 1
    for size in range(1, min(len(words), _LONGEST) + 1):
        known = ARITY.get(" ".join(words[:size]))
        if known is not None:
            best = known
    return min(best, len(words))


def always_pattern(words: list[str]) -> str:
    """The "always" pattern for a command: its identifying prefix followed by `` *``."""
    return " ".join(words[: arity(words)]) + " *"
