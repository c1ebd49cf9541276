"""Commands that a command runs for us: ``sh -c '…'``, ``eval …``, ``find -exec …``, ``xargs …``.

Their inner commands are checked like any other (asked for as bash commands, their files
resolved). What cannot be read before running — a script held in a variable, read from standard
input, or arguments that ``xargs`` reads — is reported as unknown, so the check asks.
"""

from __future__ import annotations

from dataclasses import field

from core.permission.bash_files import TEXT_ARGS
from core.permission.command import SimpleCommand, Word
from core.permission.shell import split_commands
from core.permission.words import is_dynamic
from core.record import struct

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox"})
# Commands that run the command given as their arguments (their own options are skipped).
WRAPPERS = frozenset({"env", "command", "exec", "nohup", "nice", "time", "timeout", "sudo", "doas", "stdbuf"})
# Options of those wrappers that take the next word as their value.
_WRAPPER_VALUED = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
}
_FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# xargs options that take the next word as their value.
_XARGS_VALUED = frozenset(
    {"-I", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--arg-file", "--delimiter"}
)
MAX_DEPTH = 4


@struct
class Expanded:
    """Every command a line runs, nested ones included, and what about it cannot be known."""

    commands: list[SimpleCommand] = field(default_factory=list)
    unknown: dict[str, str] = field(default_factory=dict)  # pattern → why it is unknown


def expand(commands: list[SimpleCommand], depth: int = 0, into: Expanded | None = None) -> Expanded:
    """``commands`` followed, each, by the commands it runs on its behalf."""
    out = into if into is not None else Expanded()
    for cmd in commands:
        out.commands.append(cmd)
        inner = _inner(cmd, out)
        if not inner:
            continue
        if depth >= MAX_DEPTH:
            out.unknown.setdefault(cmd.text, f"commands nested more than {MAX_DEPTH} levels deep")
            continue
        expand(inner, depth + 1, out)
    return out


def _inner(cmd: SimpleCommand, out: Expanded) -> list[SimpleCommand]:
    words = _unwrapped(cmd.words[len(cmd.assignments) :])
    if not words:
        return []
    name = words[0].value.rsplit("/", 1)[-1]
    if name in SHELLS:
        return _shell_script(cmd, words, out)
    if name == "eval":
        return _script(cmd, words[1:], out, "eval")
    if name == "find":
        return _find_commands(words)
    if name == "xargs":
        inner = _xargs_command(words)
        if inner.argv and inner.argv[0] not in TEXT_ARGS:
            out.unknown.setdefault(cmd.text, "xargs adds arguments read from standard input")
        return [inner] if inner.words else []
    return []


def _unwrapped(words: list[Word]) -> list[Word]:
    """The wrapped command of ``env``/``sudo``/``timeout`` … (roughly: their options are skipped)."""
    index = 0
    while index < len(words) and words[index].value in WRAPPERS:
        wrapper = words[index].value
        index += 1
        while index < len(words):
            value = words[index].value
            if value in _WRAPPER_VALUED.get(wrapper, ()):
                index += 2
            elif (
                value.startswith("-")
                or (wrapper == "env" and "=" in value)
                or (wrapper == "timeout" and value[:1].isdigit())
            ):
                index += 1
            else:
                break
    return words[index:]


def _shell_script(cmd: SimpleCommand, words: list[Word], out: Expanded) -> list[SimpleCommand]:
    index = 1
    runs_string = False
    while index < len(words) and words[index].value.startswith(("-", "+")) and words[index].value != "--":
        option = words[index].value
        runs_string = runs_string or (not option.startswith("--") and "c" in option[1:])
        index += 1
        if option in ("-o", "+o", "-O", "+O"):
            index += 1
    if runs_string:
        return _script(cmd, words[index : index + 1], out, "sh -c")
    if index >= len(words) or words[index].value == "-s":
        out.unknown.setdefault(cmd.text, "the shell reads its script from standard input")
    return []  # a script file: read like any other argument


def _script(cmd: SimpleCommand, words: list[Word], out: Expanded, what: str) -> list[SimpleCommand]:
    if any(is_dynamic(w) for w in words):
        out.unknown.setdefault(cmd.text, f"the script {what} runs is only known when it runs")
        return []
    return split_commands(" ".join(w.value for w in words))


def _find_commands(words: list[Word]) -> list[SimpleCommand]:
    found: list[SimpleCommand] = []
    index = 0
    while index < len(words):
        if words[index].value in _FIND_RUNNERS:
            end = index + 1
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            inner = words[index + 1 : end]
            if inner:
                found.append(SimpleCommand(" ".join(w.raw for w in inner), list(inner)))
            index = end
        index += 1
    return found


def _xargs_command(words: list[Word]) -> SimpleCommand:
    index = 1
    while index < len(words) and words[index].value.startswith("-"):
        index += 2 if words[index].value in _XARGS_VALUED else 1
    inner = words[index:]
    return SimpleCommand(" ".join(w.raw for w in inner), list(inner))
