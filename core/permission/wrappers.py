"""Programs that run another command given as their arguments: ``nice rm x`` runs ``rm x``.

A rule about ``rm`` must hold for ``nice rm``, ``sudo -u x rm``, ``timeout 5 rm`` and the rest, so
the checker finds the command each wrapper runs and checks it as if written alone. Each wrapper's
options are read from its table row; an option the row does not know could take a value and hide
the command, so the wrapped command is then unknown and the line asks. Options that end the
wrapper's search for a command (``command -v rm`` only prints) mean it runs nothing; options whose
value is a shell script (``flock -c '…'``, ``env -S '…'``) hand that script to the checker.
"""

from __future__ import annotations

from core.permission.command import Word
from core.permission.options import parse
from core.record import record


@record
class Wrapper:
    """How a wrapper is called: ``valued`` options take a value, ``flags`` do not; ``operands``
    words come between its options and the command (``timeout DURATION``); ``quiet`` options
    mean no command runs; ``scripts`` options take a shell script; ``opaque`` options change
    what runs in a way the checker does not follow (the reason is shown); ``joins``: the command's
    words are joined and run by a shell (``watch``)."""

    valued: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    operands: int = 0
    quiet: frozenset[str] = frozenset()
    scripts: frozenset[str] = frozenset()
    opaque: tuple[tuple[str, str], ...] = ()
    joins: bool = False
    assignments: bool = False  # NAME=value words may come before the command (env)
    shells: frozenset[str] = frozenset()  # options that, with no command, start a shell on stdin
    digits: bool = False  # -10 is an option (nice)


@record
class Wrapped:
    """What a wrapper runs: the command's words, or a shell script, or nothing."""

    words: list[Word]
    script: str | None = None


@record
class Hidden:
    """A wrapper whose command cannot be told, and why."""

    reason: str


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(
        valued=_f("-u", "--unset", "-S", "--split-string", "-C", "--chdir"),
        flags=_f("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-")
        | _f("--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"),
        scripts=_f("-S", "--split-string"),
        opaque=(
            ("-C", "it runs the command in another folder"),
            ("--chdir", "it runs the command in another folder"),
        ),
        assignments=True,
    ),
    "command": Wrapper(flags=_f("-p"), quiet=_f("-v", "-V")),
    "exec": Wrapper(valued=_f("-a"), flags=_f("-c", "-l")),
    "builtin": Wrapper(),
    "nice": Wrapper(valued=_f("-n", "--adjustment"), digits=True),
    "ionice": Wrapper(
        valued=_f("-c", "--class", "-n", "--classdata"),
        flags=_f("-t", "--ignore"),
        quiet=_f("-p", "--pid", "-P", "--pgid", "-u", "--uid"),
    ),
    "timeout": Wrapper(
        valued=_f("-s", "--signal", "-k", "--kill-after"),
        flags=_f("--preserve-status", "--foreground", "-v", "--verbose"),
        operands=1,
    ),
    "nohup": Wrapper(),
    "time": Wrapper(
        valued=_f("-f", "--format", "-o", "--output"),
        flags=_f("-p", "--portability", "-a", "--append", "-v", "--verbose", "-q", "--quiet"),
    ),
    "stdbuf": Wrapper(valued=_f("-i", "--input", "-o", "--output", "-e", "--error")),
    "setsid": Wrapper(flags=_f("-c", "--ctty", "-f", "--fork", "-w", "--wait")),
    "sudo": Wrapper(
        valued=_f("-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host")
        | _f("-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T")
        | _f("--command-timeout", "-R", "--chroot"),
        flags=_f("-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H", "--set-home")
        | _f("-i", "--login", "-k", "--reset-timestamp", "-n", "--non-interactive", "-P")
        | _f("--preserve-groups", "-S", "--stdin", "-s", "--shell", "-B", "--bell", "-N", "--no-update"),
        quiet=_f("-l", "--list", "-v", "--validate", "-K", "--remove-timestamp", "-V", "--version"),
        shells=_f("-s", "--shell", "-i", "--login"),
        opaque=(
            ("-e", "sudo -e edits files as another user"),
            ("--edit", "sudo -e edits files as another user"),
        ),
    ),
    "doas": Wrapper(valued=_f("-u"), flags=_f("-n", "-s", "-L"), quiet=_f("-C"), shells=_f("-s")),
    "chrt": Wrapper(
        valued=_f("-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"),
        flags=_f("-a", "--all-tasks", "-b", "--batch", "-d", "--deadline", "-e", "--ext", "-f", "--fifo")
        | _f("-i", "--idle", "-o", "--other", "-r", "--rr", "-R", "--reset-on-fork", "-v", "--verbose"),
        quiet=_f("-p", "--pid", "-m", "--max"),
        operands=1,
    ),
    "taskset": Wrapper(
        flags=_f("-a", "--all-tasks", "-c", "--cpu-list"), quiet=_f("-p", "--pid"), operands=1
    ),
    "flock": Wrapper(
        valued=_f("-w", "--wait", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"),
        flags=_f("-s", "--shared", "-x", "-e", "--exclusive", "-n", "--nb", "--nonblock", "-u", "--unlock")
        | _f("-o", "--close", "-F", "--no-fork", "--verbose"),
        scripts=_f("-c", "--command"),
        operands=1,
    ),
    "unbuffer": Wrapper(flags=_f("-p")),
    "watch": Wrapper(
        valued=_f("-n", "--interval", "-q", "--equexit"),
        flags=_f(
            "-b", "--beep", "-c", "--color", "-C", "--no-color", "-d", "--differences", "-e", "--errexit"
        )
        | _f("-g", "--chgexit", "-p", "--precise", "-r", "--no-rerun", "-t", "--no-title", "-w", "--no-wrap")
        | _f("-x", "--exec", "-f", "--follow"),
        joins=True,
    ),
    "busybox": Wrapper(quiet=_f("--list", "--list-full", "--help")),
}


def unwrap(name: str, args: list[Word]) -> Wrapped | Hidden | None:
    """What wrapper ``name`` called with ``args`` runs; ``None`` when ``name`` is no wrapper."""
    spec = WRAPPERS.get(name)
    if spec is None:
        return None
    parsed = parse(args, spec.valued, permute=False, longs=spec.flags | spec.quiet, flag_digits=spec.digits)
    script: str | None = None
    for option in parsed.options:
        if option.name in spec.quiet:
            return Wrapped([])
        reason = dict(spec.opaque).get(option.name)
        if reason is not None:
            return Hidden(f"{name} {option.name}: {reason}")
        if option.name in spec.scripts and option.value is not None:
            script = option.value.value
        elif option.name not in spec.valued | spec.flags and not (spec.digits and option.name[1:].isdigit()):
            return Hidden(f"{name} is given {option.name}, an option the checker does not know")
    rest = args[parsed.stop :]
    if rest and rest[0].value == "-" and "-" in spec.flags:  # env -: an empty environment
        rest = rest[1:]
    if spec.assignments:
        while rest and "=" in rest[0].value and not rest[0].value.startswith("="):
            rest = rest[1:]
    if script is not None:
        return Wrapped([], " ".join([script, *(w.value for w in rest)]).strip())
    rest = rest[spec.operands :]
    if not rest and any(option.name in spec.shells for option in parsed.options):
        return Hidden(f"{name} starts a shell that reads its commands from standard input")
    if name == "flock" and rest and rest[0].value in ("-c", "--command"):
        return Wrapped([], " ".join(w.value for w in rest[1:2]))
    if spec.joins and rest:
        return Wrapped([], " ".join(w.value for w in rest))
    return Wrapped(rest)
