"""Wrappers with a grammar of their own, which a table row of ``core.permission.wrappers`` cannot
say: ``su -c``, ``runuser``, ``script -c``, ``gdb --args``, ``perf stat|record``, ``valgrind`` and
``firejail`` (whose options are each one word), ``parallel``.

Each finds the command it runs (a rule about ``rm`` must hold for ``valgrind rm x``), or says why
it cannot: an option it does not know, a shell reading standard input, a debugger script.
"""

from __future__ import annotations

from collections.abc import Callable

from core.permission.command import Word
from core.permission.options import parse
from core.permission.wrapped import Hidden, Wrapped

Launched = Wrapped | Hidden


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_SHELL = "starts a shell that reads its commands from standard input"
_SU_VALUED = _f("-c", "--command", "--session-command", "-g", "--group", "-G", "--supp-group", "-u", "--user")
_SU_FLAGS = _f("-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast")
_SU_OPAQUE = _f("-s", "--shell", "-w", "--whitelist-environment")


def _su(name: str, args: list[Word]) -> Launched:
    """``su [options] [user]`` runs ``-c``'s script in the user's shell, else an interactive shell;
    ``runuser -u user [--] command`` runs the command itself."""
    parsed = parse(args, _SU_VALUED | _SU_OPAQUE, longs=_SU_FLAGS)
    script: str | None = None
    for option in parsed.options:
        if option.name in _SU_OPAQUE:
            return Hidden(
                f"{name} {option.name}: it runs another shell or keeps variables the checker does not read"
            )
        if option.name in ("-c", "--command", "--session-command") and option.value is not None:
            script = option.value.value
        elif option.name in ("-u", "--user") and name == "runuser":
            return Wrapped(args[parsed.stop :] if parsed.stop < len(args) else parsed.operands)
        elif option.name not in _SU_VALUED | _SU_FLAGS:
            return Hidden(f"{name} is given {option.name}, an option the checker does not know")
    if script is None:
        return Hidden(f"{name} {_SHELL}")
    return Wrapped([], script)


_SCRIPT_VALUED = _f("-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io")
_SCRIPT_VALUED |= _f("-T", "--log-timing", "-m", "--logging-format")
_SCRIPT_FLAGS = _f("-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet", "--force")


def _script(name: str, args: list[Word]) -> Launched:
    """``script -c CMD [file]`` runs CMD and writes what it shows to ``file`` (``typescript``)."""
    parsed = parse(args, _SCRIPT_VALUED, longs=_SCRIPT_FLAGS)
    command: str | None = None
    writes = True
    for option in parsed.options:
        if option.name in ("-c", "--command") and option.value is not None:
            command = option.value.value
        elif option.name not in _SCRIPT_VALUED | _SCRIPT_FLAGS:
            return Hidden(f"script is given {option.name}, an option the checker does not know")
    if command is None:
        return Hidden(f"script {_SHELL}")
    if parsed.operands and parsed.operands[0].value == "/dev/null":
        writes = False
    return Wrapped([], command, "script writes what the command shows to a file" if writes else None)


# What `gdb -ex` may do without the checker reading it: run the program, and look.
_GDB_HARMLESS = _f("run", "r", "bt", "backtrace", "where", "quit", "q", "continue", "c", "info registers")
_GDB_VALUED = _f(
    "-ex", "--ex", "-eval-command", "--eval-command", "-p", "--pid", "-c", "--core", "-cd", "--cd"
)
_GDB_VALUED |= _f("-d", "--directory", "-s", "--symbols", "-e", "--exec", "-tty", "--tty")
_GDB_FLAGS = _f("-batch", "--batch", "-q", "-quiet", "--quiet", "-nx", "--nx", "-nh", "--nh", "-n")
_GDB_FLAGS |= _f("-return-child-result", "--return-child-result", "-silent", "--silent", "-readnow")


def _gdb(name: str, args: list[Word]) -> Launched:
    """``gdb [options] --args prog args`` runs ``prog args`` when one of its commands is ``run``.

    gdb's long options take one dash (``-batch``), so they are read whole, not as letters."""
    index, runs, operands = 0, False, []
    while index < len(args) and args[index].value not in ("--args", "-args"):
        option, _, attached = args[index].value.partition("=")
        if not option.startswith("-"):
            operands.append(args[index])
        elif option in _GDB_VALUED:
            value = attached if attached else args[index + 1].value if index + 1 < len(args) else ""
            index += 0 if attached else 1
            if option.lstrip("-") in ("ex", "eval-command"):
                if value.strip() not in _GDB_HARMLESS:
                    return Hidden(f"gdb -ex '{value}': a debugger command the checker does not read")
                runs = runs or value.strip() in ("run", "r")
        elif option not in _GDB_FLAGS:
            return Hidden(f"gdb is given {option}, an option the checker does not know (or a script)")
        index += 1
    if index < len(args):  # --args: the program and its arguments
        return Wrapped(args[index + 1 :])
    return Wrapped(operands[:1] if runs else [])


_PERF_VALUED = _f("-e", "--event", "-o", "--output", "-p", "--pid", "-t", "--tid", "-C", "--cpu", "-c")
_PERF_VALUED |= _f("-F", "--freq", "-G", "--cgroup", "-r", "--repeat", "-x", "--field-separator", "-I")
_PERF_VALUED |= _f("--call-graph", "-m", "--mmap-pages", "-u", "--uid", "--interval-print")
_PERF_FLAGS = _f("-a", "--all-cpus", "-g", "-d", "--detailed", "-v", "--verbose", "-q", "--quiet", "-n")
_PERF_FLAGS |= _f("-s", "--per-thread", "-A", "--no-aggr", "-i", "--no-inherit", "-T", "--timestamp")


def _perf(name: str, args: list[Word]) -> Launched:
    """``perf stat|record|trace [options] command``; other subcommands run nothing of the line's."""
    if not args or args[0].value not in ("stat", "record", "trace"):
        return Wrapped([])
    sub = args[0].value
    parsed = parse(args[1:], _PERF_VALUED, permute=False, longs=_PERF_FLAGS)
    writes = sub == "record"
    for option in parsed.options:
        if option.name not in _PERF_VALUED | _PERF_FLAGS:
            return Hidden(f"perf {sub} is given {option.name}, an option the checker does not know")
        writes = writes or (option.name in ("-o", "--output"))
    rest = args[1 + parsed.stop :]
    return Wrapped(rest, unknown=f"perf {sub} writes its data to a file" if writes and rest else None)


def _one_word_options(
    writers: tuple[str, ...], quiet: frozenset[str], *, bare_shell: bool = False
) -> Callable[[str, list[Word]], Launched]:
    """Tools whose options are each one word (``--tool=memcheck``): the first other word is the command."""

    def launch(name: str, args: list[Word]) -> Launched:
        index = 0
        unknown: str | None = None
        while index < len(args) and args[index].value.startswith("-") and args[index].value != "--":
            option = args[index].value.partition("=")[0]
            if option in quiet:
                return Wrapped([])
            if option in writers:
                unknown = f"{name} {option} writes to a file"
            index += 1
        if index < len(args) and args[index].value == "--":
            index += 1
        if index == len(args) and bare_shell:
            return Hidden(f"{name} {_SHELL}")
        return Wrapped(args[index:], unknown=unknown if index < len(args) else None)

    return launch


def _parallel(name: str, args: list[Word]) -> Launched:
    """``parallel [options] command ::: args``: each argument, read or listed, is added to the command
    and the whole is run by a shell."""
    index = 0
    while index < len(args) and args[index].value.startswith("-"):
        option = args[index].value
        if option in ("-S", "--sshlogin", "--sshloginfile", "--slf"):
            return Hidden("parallel -S runs the command on other machines")
        attached = (option.startswith("--") and "=" in option) or (
            not option.startswith("--") and len(option) > 2
        )
        if option in _PARALLEL_FLAGS or (
            attached and option.partition("=")[0][: 2 if option[1] != "-" else None] in _PARALLEL_VALUED
        ):
            index += 1
        elif option in _PARALLEL_VALUED:
            index += 2
        else:
            return Hidden(f"parallel is given {option}, an option the checker does not know")
    end = next((i for i in range(index, len(args)) if args[i].value.startswith(":::")), len(args))
    command = " ".join(w.value for w in args[index:end])
    if not command:
        return Hidden("parallel runs the commands it reads from standard input")
    return Wrapped([], command, "parallel adds to the command arguments it reads or is given after :::")


_PARALLEL_FLAGS = _f("-k", "--keep-order", "-0", "--null", "-q", "--quote", "-v", "--verbose", "-u")
_PARALLEL_FLAGS |= _f(
    "--ungroup", "--group", "--line-buffer", "--bar", "--progress", "--eta", "-X", "--xargs"
)
_PARALLEL_VALUED = _f("-j", "--jobs", "-N", "-n", "--max-args", "-a", "--arg-file", "-d", "--delimiter")
_PARALLEL_VALUED |= _f("-I", "--colsep", "-C", "--timeout", "--halt", "--delay", "--tag-string")

LAUNCHERS: dict[str, Callable[[str, list[Word]], Launched]] = {
    "su": _su,
    "runuser": _su,
    "script": _script,
    "gdb": _gdb,
    "perf": _perf,
    "valgrind": _one_word_options(("--log-file", "--xml-file"), _f("--help", "-h", "--version")),
    "firejail": _one_word_options(
        ("--output", "--output-stderr"), _f("--help", "--version", "--list", "--tree"), bare_shell=True
    ),
    "parallel": _parallel,
}


def launched(name: str, args: list[Word]) -> Launched | None:
    """What ``name`` (one of the launchers) runs, or ``None`` when it is none of them."""
    launch = LAUNCHERS.get(name)
    return None if launch is None else launch(name, args)
