"""The built-in rules: reading the project runs, changing it asks.

File edits (edit, write, patch) ask; bash asks, except read-only commands (``ls``, ``cat``,
``git status`` …) which run; webfetch asks, and so does a host a sandboxed command connects to
(``network``); reading, listing and searching the project run.
A read-only command still asks through its other requests when it touches a folder outside the
project (``external_directory``), a secret such as ``.env`` (``read``), a word whose files cannot be
known before it runs (``unknown_path``) or writes a file (``edit``): those are separate requests
that these rules ask for. Every rule here is the lowest layer: any config rule overrides it, and
``"permission": "allow"`` allows everything.
"""

from __future__ import annotations

# Bash commands that only read, as rule patterns (`` *`` also matches the command alone).
READ_ONLY_COMMANDS = (
    "ls *",
    "cat *",
    "head *",
    "tail *",
    "wc *",
    "pwd *",
    "echo *",
    "printf *",
    "cd *",
    "true",
    "git status *",
    "git diff *",
    "git log *",
    "git show *",
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
    "rg *",
    "grep *",
    "egrep *",
    "fgrep *",
    "find *",
    "tree *",
    "file *",
    "stat *",
    "which *",
    "type *",
    "basename *",
    "dirname *",
    "realpath *",
    "readlink *",
    "du *",
    "diff *",
    "cmp *",
    "sort *",
    "cut *",
    "nl *",
)

# Forms of those commands that write, delete or run something else: they ask again. A pattern
# may also catch a harmless word that contains the option's letters; that only asks.
NOT_READ_ONLY = (
    "find *-exec*",  # -exec, -execdir
    "find *-ok*",  # -ok, -okdir
    "find *-delete*",
    "find *-fprint*",
    "find *-fls*",
    "git diff *--output*",
    "git log *--output*",
    "git show *--output*",
    "git diff *--ext-diff*",
    "git log *--ext-diff*",
    "git show *--ext-diff*",
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
    "rg *--pre*",  # runs a preprocessor
    "rg *--hostname-bin*",  # runs a program
    "tree *-o*",
    "file *-C*",
    "file *--compile*",
    "sort *-o*",
    "sort *--output*",
    "sort *--compress-program*",
)

# permission, pattern, action — in order (the last match wins).
DEFAULT_RULES: tuple[tuple[str, str, str], ...] = (
    ("*", "*", "allow"),
    ("edit", "*", "ask"),
    ("bash", "*", "ask"),
    *(("bash", pattern, "allow") for pattern in READ_ONLY_COMMANDS),
    *(("bash", pattern, "ask") for pattern in NOT_READ_ONLY),
    ("webfetch", "*", "ask"),
    ("network", "*", "ask"),  # a host a sandboxed command connects to (core/sandbox/proxy.py)
    ("doom_loop", "*", "ask"),
    ("external_directory", "*", "ask"),
    ("unknown_path", "*", "ask"),
    ("read", "*.env", "ask"),
    ("read", "*.env.*", "ask"),
    ("read", "*.env.example", "allow"),
)
