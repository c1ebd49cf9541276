"""The built-in rules: reading the project runs, changing it asks.

File edits (edit, write, patch) ask; bash asks, except read-only commands (``ls``, ``cat``,
``git status`` …) which run; webfetch asks, and asks again (``local_network``) before it connects to
a loopback, private or link-local address, and so does a host a sandboxed command connects to
(``network``); reading, listing and searching the project run.
A read-only command still asks through its other requests when it touches a folder outside the
project (``external_directory``), a secret such as ``.env`` (``read``), a word whose files cannot be
known before it runs (``unknown_path``) or writes a file (``edit``): those are separate requests
that these rules ask for. Every rule here is the lowest layer: any config rule overrides it, and
``"permission": "allow"`` allows everything.
"""

from __future__ import annotations

from core.permission.effects import COMMANDS

# Bash commands that only read, as rule patterns (`` *`` also matches the command alone): those
# ``core.permission.effects`` marks read-only. What one of them writes or runs through an option
# (``sort -o f``, ``rg --pre prog``, ``find -delete``) is asked for by the checker's other requests.
READ_ONLY_COMMANDS = (
    *(f"{name} *" for name, row in COMMANDS.items() if row.read_only),
    "true",
    "git branch",
    "git branch --list *",
    "git branch -l *",
    "git branch -a *",
    "git branch --all *",
    "git branch -r *",
    "git branch --remotes *",
    "git branch -v",
    "git branch -vv",
    "git branch --show-current",
)

# ``git branch``'s forms that change branches rather than files, so no file request covers them:
# they ask again. A pattern may also catch a harmless word that contains the option's letters;
# that only asks.
NOT_READ_ONLY = (
    "git branch *-d*",
    "git branch *-D*",
    "git branch *-m*",
    "git branch *-M*",
    "git branch *-c*",
    "git branch *-C*",
    "git branch *-f*",
    "git branch *-u*",
    "git branch *-t*",
    "git branch *--set-upstream*",
    "git branch *--unset-upstream*",
    "git branch *--edit-description*",
)

# permission, pattern, action — in order (the last match wins).
DEFAULT_RULES: tuple[tuple[str, str, str], ...] = (
    ("*", "*", "allow"),
    ("edit", "*", "ask"),
    ("bash", "*", "ask"),
    *(("bash", pattern, "allow") for pattern in READ_ONLY_COMMANDS),
    *(("bash", pattern, "ask") for pattern in NOT_READ_ONLY),
    ("webfetch", "*", "ask"),
    ("local_network", "*", "ask"),  # a fetch from this machine or its networks (core.tools.webaddress)
    ("network", "*", "ask"),  # a host a sandboxed command connects to (core/sandbox/proxy.py)
    ("doom_loop", "*", "ask"),
    ("plan_exit", "*", "deny"),  # only the plan agent (and read-only mode) presents plans
    (
        "hook",
        "*",
        "ask",
    ),  # a PreToolUse hook that asks (core.hooks): always a dialog unless the user's rules say
    ("external_directory", "*", "ask"),
    ("unknown_path", "*", "ask"),
    ("read", "*.env", "ask"),
    ("read", "*.env.*", "ask"),
    ("read", "*.env.example", "allow"),
)
