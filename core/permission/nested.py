"""Commands that a command runs for us: ``sh -c '…'``, ``eval …``, ``find -exec …``, ``xargs …``,
a wrapper's command (``nice rm x``, ``sudo -u u rm x``: see ``core.permission.wrappers``), a program
or script an option runs (``rg --pre prog``, ``git -c core.pager=…``: see
``core.permission.effects``) or a variable names (``GIT_PAGER='…' git log``, ``export EDITOR=…``),
and what ``find -delete`` does (checked as ``rm`` of the folders it
searches, so a rule about ``rm`` holds for it).

Their inner commands are checked like any other (asked for as bash commands, their files
resolved), each marked with what runs it. What cannot be read before running — a script held in a
variable, read from standard input, arguments that ``xargs`` reads, a wrapper called with an option
the checker does not know — is reported as unknown, so the check asks.
"""

from __future__ import annotations

from dataclasses import field

from core.permission.bash_files import TEXT_ARGS
from core.permission.command import SimpleCommand, Word, plain_word
from core.permission.effects import effects
from core.permission.shell import split_commands
from core.permission.words import is_dynamic
from core.permission.wrapped import Hidden
from core.permission.wrappers import unwrap
from core.record import struct

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"})
_FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# find's options that come before its starting points.
_FIND_LEADING = frozenset({"-H", "-L", "-P"})
# xargs options that take the next word as their value.
_XARGS_VALUED = frozenset(
    {"-I", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--arg-file", "--delimiter"}
    | {"--max-args", "--max-lines", "--max-procs", "--max-chars", "--process-slot-var"}
)
# Variables whose value programs run as a command line (git, man, less, bash and ssh read them).
RUNNING_VARIABLES = frozenset(
    {"PAGER", "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"}
    | {"GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "LESSOPEN"}
    | {"LESSCLOSE", "BASH_ENV", "ENV", "PROMPT_COMMAND", "GIT_PROXY_COMMAND", "RSYNC_RSH", "BROWSER"}
)
# Variables that make a program load or run code they name (a library, a startup file, a module,
# a folder its programs are found in): with one of them set, even a read-only command may run
# anything, so the line asks.
_LIBRARY = "makes the program load the library it names"
_CODE = "makes the interpreter load or run the code it names"
_GIT = "makes git read a configuration, or run programs, the checker does not see"
LOADING_VARIABLES: dict[str, str] = {
    **dict.fromkeys(("LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES"), _LIBRARY),
    **dict.fromkeys(("DYLD_LIBRARY_PATH", "GCONV_PATH"), _LIBRARY),
    **dict.fromkeys(("PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONINSPECT"), _CODE),
    **dict.fromkeys(
        ("PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH"), _CODE
    ),
    **dict.fromkeys(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "ZDOTDIR"), _CODE),
    **dict.fromkeys(
        ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"), _GIT
    ),
    **dict.fromkeys(("GIT_EXEC_PATH", "GIT_DIR", "GIT_TEMPLATE_DIR"), _GIT),
    "TAR_OPTIONS": "gives tar options, which may run programs",
    "PATH": "chooses which programs the command's names run",
}
# Builtins whose arguments are assignments (``export GIT_PAGER=…``).
_DECLARERS = frozenset({"export", "declare", "typeset", "readonly", "local"})
# How many commands deep the checker follows (``sudo nice timeout sh -c 'rm x'`` is 4 deep).
MAX_DEPTH = 8


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
    words = cmd.words[len(cmd.assignments) :]
    settings = list(cmd.assignments)
    if words and words[0].value in _DECLARERS:
        settings.extend(words[1:])
    found: list[SimpleCommand] = []
    for word in settings:
        name, equals, value = word.value.partition("=")
        if equals and name in RUNNING_VARIABLES and value.strip():
            found.extend(_text_script(cmd, value, is_dynamic(word), out, f"${name}"))
        elif equals and name in LOADING_VARIABLES:
            out.unknown.setdefault(cmd.text, f"{name} {LOADING_VARIABLES[name]}")
    return found + _runs(cmd, words, out)


def _runs(cmd: SimpleCommand, words: list[Word], out: Expanded) -> list[SimpleCommand]:
    """What the command's program runs for it."""
    if not words:
        return []
    name = words[0].value.rsplit("/", 1)[-1]
    wrapped = unwrap(name, words[1:])
    if isinstance(wrapped, Hidden):
        out.unknown.setdefault(cmd.text, wrapped.reason)
        return []
    if wrapped is not None:
        if wrapped.unknown is not None:
            out.unknown.setdefault(cmd.text, wrapped.unknown)
        if wrapped.script is not None:
            return _text_script(cmd, wrapped.script, any(is_dynamic(w) for w in words), out, name)
        if not wrapped.words:
            return []
        inner = _command(wrapped.words, name)
        inner.host = cmd.text
        return [inner]
    if name in SHELLS:
        return _shell_script(cmd, words, out)
    if name == "eval":
        return _script(cmd, words[1:], out, "eval")
    if name == "xargs":
        inner = _xargs_command(words)
        if inner.argv and inner.argv[0] not in TEXT_ARGS:
            out.unknown.setdefault(cmd.text, "xargs adds arguments read from standard input")
        return [inner] if inner.words else []
    found = _find_commands(words) if name == "find" else []
    effect = effects(words)
    found.extend(_command([program], f"{name}'s option") for program in effect.runs)
    for text, via in effect.scripts:
        found.extend(_text_script(cmd, text, any(is_dynamic(w) for w in words), out, via))
    return found


def _command(words: list[Word], via: str) -> SimpleCommand:
    return SimpleCommand(" ".join(w.raw for w in words), list(words), via=via)


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
        shell = words[0].value.rsplit("/", 1)[-1]
        return _script(cmd, words[index : index + 1], out, f"{shell} -c")
    if index >= len(words) or words[index].value == "-s":
        out.unknown.setdefault(cmd.text, "the shell reads its script from standard input")
    return []  # a script file: read like any other argument


def _script(cmd: SimpleCommand, words: list[Word], out: Expanded, what: str) -> list[SimpleCommand]:
    text = " ".join(w.value for w in words)
    return _text_script(cmd, text, any(is_dynamic(w) for w in words), out, what)


def _text_script(
    cmd: SimpleCommand, text: str, dynamic: bool, out: Expanded, what: str
) -> list[SimpleCommand]:
    if dynamic:
        out.unknown.setdefault(cmd.text, f"the script {what} runs is only known when it runs")
        return []
    commands = split_commands(text)
    for inner in commands:
        inner.via = inner.via or what
    return commands


def _find_commands(words: list[Word]) -> list[SimpleCommand]:
    found: list[SimpleCommand] = []
    index = 0
    while index < len(words):
        runner = words[index].value
        if runner in _FIND_RUNNERS:
            end = index + 1
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            inner = words[index + 1 : end]
            if inner:
                found.append(_command(inner, f"find {runner}"))
            index = end
        elif runner == "-delete":
            found.append(_command([plain_word("rm"), *find_roots(words)], "find -delete"))
        index += 1
    return found


def find_roots(words: list[Word]) -> list[Word]:
    """The folders ``find`` (``words[0]``) searches: ``.`` when it names none."""
    index = 1
    while index < len(words) and (words[index].value in _FIND_LEADING or words[index].value.startswith("-D")):
        index += 2 if words[index].value == "-D" else 1
    roots: list[Word] = []
    while index < len(words) and not words[index].value.startswith(("-", "(", "!")):
        roots.append(words[index])
        index += 1
    return roots or [plain_word(".")]


def _xargs_command(words: list[Word]) -> SimpleCommand:
    index = 1
    while index < len(words) and words[index].value.startswith("-"):
        index += 2 if words[index].value in _XARGS_VALUED else 1
    return _command(words[index:], "xargs")
