"""What a command does beyond reading, option by option: the one table behind the read-only list.

The default rules let the commands marked ``read_only`` here run without asking (``ls``, ``grep``,
``sort`` …). Such a command can still write or run something through an option: ``sort -o out``
writes ``out``, ``rg --pre prog`` runs ``prog``, ``find -fprint f`` writes ``f``. Each row names
those options, so the checker turns them into the requests the effect needs — ``edit`` for a file
written, a ``bash`` request for a program or script run, ``unknown_path`` (asked under every rule
set) for an effect it cannot follow — and a read-only command that asks nothing is read-only in
fact. Options are read as getopt reads them (``-uo out`` is ``-o out``; ``--out=f`` abbreviates
``--output=f``), see ``core.permission.options``.
"""

from __future__ import annotations

import re

from core.permission.command import Word
from core.permission.options import Option, after, parse
from core.record import record


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


@record
class Effects:
    """A command's options that do more than read: ``writes`` take a file they write, ``runs`` a
    program they run, ``scripts`` a shell command they run; ``opaque`` do something the checker
    does not follow (the reason is shown); ``valued`` are its other options that take a value;
    ``written`` are the operand positions it writes (``uniq IN OUT``). ``single_dash``: long
    options take one dash (``find -fprint``)."""

    read_only: bool = False
    valued: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    runs: frozenset[str] = frozenset()
    scripts: frozenset[str] = frozenset()
    opaque: tuple[tuple[str, str], ...] = ()
    written: tuple[int, ...] = ()
    single_dash: bool = False


_GIT_OUTPUT = Effects(
    read_only=True,
    valued=_f("-n", "--max-count", "--format", "--pretty", "-U", "--unified", "-S", "-G", "-L", "-O"),
    writes=_f("--output"),
    opaque=(("--ext-diff", "git --ext-diff runs the diff program git's configuration names"),),
)
_GREP = Effects(
    read_only=True,
    valued=_f("-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C", "-d", "-D")
    | _f("--include", "--exclude", "--exclude-dir", "--exclude-from", "--directories", "--devices"),
)

COMMANDS: dict[str, Effects] = {
    "ls": Effects(read_only=True),
    "cat": Effects(read_only=True),
    "head": Effects(read_only=True, valued=_f("-n", "--lines", "-c", "--bytes")),
    "tail": Effects(read_only=True, valued=_f("-n", "--lines", "-c", "--bytes", "-s", "--sleep-interval")),
    "wc": Effects(read_only=True),
    "pwd": Effects(read_only=True),
    "echo": Effects(read_only=True),
    "printf": Effects(read_only=True),
    "cd": Effects(read_only=True),
    "git status": Effects(read_only=True),
    "git diff": _GIT_OUTPUT,
    "git log": _GIT_OUTPUT,
    "git show": _GIT_OUTPUT,
    "rg": Effects(
        read_only=True,
        valued=_f("-e", "--regexp", "-f", "--file", "-g", "--glob", "--iglob", "-t", "--type", "-T")
        | _f("--type-not", "-m", "--max-count", "-A", "-B", "-C", "-r", "--replace", "-j", "--threads")
        | _f("-M", "--max-columns", "-E", "--encoding", "-d", "--max-depth", "--pre-glob", "--type-add"),
        runs=_f("--pre", "--hostname-bin"),
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "find": Effects(
        read_only=True,
        valued=_f("-name", "-iname", "-path", "-ipath", "-type", "-newer", "-maxdepth", "-mindepth"),
        writes=_f("-fprint", "-fprint0", "-fls", "-fprintf"),
        single_dash=True,
    ),
    "tree": Effects(read_only=True, valued=_f("-L", "-P", "-I", "--charset", "--filelimit"), writes=_f("-o")),
    "file": Effects(
        read_only=True,
        valued=_f("-m", "--magic-file", "-F", "--separator", "-f", "--files-from", "-e", "--exclude"),
        opaque=(
            ("-C", "file -C writes a compiled magic file"),
            ("--compile", "file -C writes a compiled magic file"),
        ),
    ),
    "stat": Effects(read_only=True, valued=_f("-c", "--format", "--printf")),
    "which": Effects(read_only=True),
    "type": Effects(read_only=True),
    "basename": Effects(read_only=True),
    "dirname": Effects(read_only=True),
    "realpath": Effects(read_only=True),
    "readlink": Effects(read_only=True),
    "du": Effects(read_only=True, valued=_f("-d", "--max-depth", "-B", "--block-size", "-t", "--threshold")),
    "diff": Effects(read_only=True, valued=_f("-C", "-U", "-D", "-F", "-I", "-S", "-W", "-x", "-X")),
    "cmp": Effects(read_only=True, valued=_f("-i", "--ignore-initial", "-n", "--bytes")),
    "sort": Effects(
        read_only=True,
        valued=_f("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T")
        | _f("--temporary-directory", "--parallel", "--batch-size", "--files0-from", "--random-source"),
        writes=_f("-o", "--output"),
        runs=_f("--compress-program"),
    ),
    "cut": Effects(read_only=True, valued=_f("-b", "-c", "-f", "-d", "--delimiter")),
    "nl": Effects(read_only=True, valued=_f("-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w")),
    # Not read-only, but what they write answers to edit too.
    "uniq": Effects(valued=_f("-f", "-s", "-w"), written=(1,)),
    "xxd": Effects(valued=_f("-c", "-g", "-l", "-o", "-s", "-n"), written=(1,)),
    "time": Effects(valued=_f("-f", "--format"), writes=_f("-o", "--output")),
    "man": Effects(valued=_f("-M", "-S", "-L", "-m", "-E"), scripts=_f("-P", "--pager", "--html")),
    "split": Effects(opaque=(("*", "split writes files whose names it makes up"),)),
    "csplit": Effects(opaque=(("*", "csplit writes files whose names it makes up"),)),
}

# git options before the subcommand, those that take a value, and those that run a value.
_GIT_GLOBAL_VALUED = _f("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env")
_GIT_OPAQUE = {
    "--config-env": "git --config-env takes its configuration (which may run programs) from the environment",
    "--exec-path": "git --exec-path runs git's programs from another folder",
}
# Configuration keys whose value is a folder of programs, not a command line.
_GIT_HOOKS = "core.hookspath"
# Configuration keys that never run anything; any other ``-c key=value`` may (``core.pager``,
# ``core.fsmonitor``, ``diff.external``, ``alias.*`` …): its value is checked as a command.
_GIT_HARMLESS = (
    *("color.", "advice.", "column.", "log.", "pretty.", "user.", "init.", "i18n.", "status."),
    *("blame.", "grep.", "core.quotepath", "core.autocrlf", "core.safecrlf", "safe.directory"),
    *("diff.renames", "diff.noprefix", "diff.mnemonicprefix", "diff.context", "diff.algorithm"),
    *("merge.conflictstyle", "pull.rebase", "commit.gpgsign", "tag.gpgsign", "format.pretty"),
)
# A sed command that writes or runs (``w file``, ``1,/x/W f``, ``e cmd``), or an ``s`` with the w/e flag.
_SED_ADDRESS = r"(\d+|\$|/[^/]*/)"
_SED_WRITE = re.compile(
    rf"(^|[;}}\n])\s*{_SED_ADDRESS}?(,\s*{_SED_ADDRESS})?\s*!?\s*[wWe]\b|s(.).*\5.*\5[gpIiMm0-9]*[we]"
)
_AWK_RUNS = re.compile(r"\bsystem\s*\(|\|\s*getline|\bprint[f]?\b[^;}\n]*[|>]")


# Commands whose script or mode word decides what they write or run.
_SCRIPTED = frozenset({"tar", "sed", "awk", "gawk", "mawk", "nawk"})


@record(slots=True, generated=True)  # made per command: a hot path
class Found:
    """What a command's options and operands do beyond reading, by kind."""

    writes: list[Word]
    runs: list[Word]
    scripts: list[tuple[str, str]]  # shell text, what runs it
    opaque: str | None = None


def effects(words: list[Word]) -> Found:
    """What the command ``words`` (program first, no assignments) writes, runs or hides."""
    found = Found([], [], [])
    if not words:
        return found
    name = words[0].value.rsplit("/", 1)[-1]
    if name not in COMMANDS and name not in _SCRIPTED and name != "git":
        return found
    args = words[1:]
    if name == "git":
        sub, args, reason = git_subcommand(args, found)
        if reason is not None:
            return Found(found.writes, found.runs, found.scripts, reason)
        name = f"git {sub}" if sub else name
    elif name in _SCRIPTED:
        reason = _scripted(name, args)
        if reason is not None:
            return Found([], [], [], reason)
    row = COMMANDS.get(name)
    if row is None:
        return found
    if row.single_dash:
        return _single_dash(row, args, found)
    opaque = dict(row.opaque)
    if "*" in opaque:
        return Found([], [], [], opaque["*"])
    takes = row.valued | row.writes | row.runs | row.scripts
    parsed = parse(args, takes, longs=_f(*opaque))
    for option in parsed.options:
        if option.name in opaque:
            return Found(found.writes, found.runs, found.scripts, opaque[option.name])
        _add(option, row, name, found)
    found.writes.extend(parsed.operands[i] for i in row.written if i < len(parsed.operands))
    return found


def git_subcommand(args: list[Word], found: Found | None = None) -> tuple[str, list[Word], str | None]:
    """git's subcommand, the words after it, and why it cannot be followed (``--config-env``);
    ``-c key=value`` values that may run are added to ``found`` as scripts."""
    index = 0
    while index < len(args) and args[index].value.startswith("-"):
        option = args[index].value
        name = option.split("=", 1)[0]
        if name in _GIT_OPAQUE:
            return "", args[index + 1 :], _GIT_OPAQUE[name]
        value: str | None = None
        if name in _GIT_GLOBAL_VALUED and "=" not in option and index + 1 < len(args):
            index += 1
            value = args[index].value
        elif "=" in option:
            value = option.split("=", 1)[1]
        if name == "-c" and value is not None and found is not None:
            key, _, setting = value.partition("=")
            if key.lower() == _GIT_HOOKS:
                return "", [], "git -c core.hooksPath runs hooks from another folder"
            lowered = key.lower()
            if lowered.startswith("alias.") and not setting.startswith("!"):
                found.scripts.append((f"git {setting}", f"the git alias {key[6:]}"))
            elif setting.strip() and not lowered.startswith(_GIT_HARMLESS):
                found.scripts.append((setting.lstrip("!"), f"git -c {key}"))
        index += 1
    if index >= len(args):
        return "", [], None
    return args[index].value, args[index + 1 :], None


def _add(option: Option, row: Effects, name: str, found: Found) -> None:
    if option.value is None:
        return
    if option.name in row.writes:
        found.writes.append(option.value)
    elif option.name in row.runs:
        found.runs.append(option.value)
    elif option.name in row.scripts:
        found.scripts.append((option.value.value, f"{name} {option.name}"))


def _single_dash(row: Effects, args: list[Word], found: Found) -> Found:
    """``find``'s expression: options are whole words and take the words after them."""
    for index, word in enumerate(args):
        if word.value in row.writes and index + 1 < len(args):
            found.writes.append(args[index + 1])
    return found


def _scripted(name: str, args: list[Word]) -> str | None:
    """Why a tar, sed or awk call may write or run what its words do not name (None: it does not)."""
    values = [w.value for w in args]
    if name == "tar":
        mode = values[0] if values and not values[0].startswith("-") else ""
        listing = "t" in mode or any(v in ("-t", "--list") or _cluster_has(v, "t") for v in values)
        writes = any(c in mode for c in "cxruAd") or any(_cluster_has(v, "cxruAd") for v in values)
        long_writes = any(
            v.startswith(("--create", "--extract", "--get", "--append", "--update", "--delete", "--cat"))
            or v.startswith(
                ("--to-command", "--checkpoint-action", "--use-compress", "--info-script", "--rsh")
            )
            or v.startswith(("--new-volume-script", "--index-file", "-I", "-F"))
            for v in values
        )
        if listing and not writes and not long_writes:
            return None
        return "tar may write, extract or run files its words do not name"
    scripts = [v for v in values if not v.startswith("-")]
    scripts += [after(w, 2).value if len(w.value) > 2 else "" for w in args if w.value.startswith("-e")]
    scripts += [args[i + 1].value for i, w in enumerate(args[:-1]) if w.value in ("-e", "--expression")]
    if name == "sed":
        if any(v.startswith(("-f", "--file")) for v in values):
            return "sed reads its script from a file: what it writes or runs cannot be told"
        if any(_SED_WRITE.search(s) for s in scripts):
            return "the sed script writes a file or runs a command (w, W, e)"
        return None
    if any(v.startswith(("-f", "--file")) for v in values):
        return f"{name} reads its program from a file: what it writes or runs cannot be told"
    if any(_AWK_RUNS.search(s) for s in scripts):
        return f"the {name} program writes a file or runs a command (system, print >, | getline)"
    return None


def _cluster_has(value: str, letters: str) -> bool:
    return value.startswith("-") and not value.startswith("--") and any(c in value[1:] for c in letters)
