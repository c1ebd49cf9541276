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
from core.permission.launchers import launched
from core.permission.options import parse
from core.permission.wrapped import Hidden, Wrapped
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
    assignments: bool = False  # NAME=value words may come before the command (env): kept with it
    shells: frozenset[str] = frozenset()  # options that, with no command, start a shell on stdin
    digits: bool = False  # -10 is an option (nice)
    bare_shell: bool = False  # with no command it starts a shell on stdin (chroot, unshare …)
    elsewhere: str = ""  # why the command's paths may name other files (chroot): checked, and asks
    moves: tuple[tuple[str, str], ...] = ()  # options that do that, or write a file, and why


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
    "strace": Wrapper(
        valued=_f("-o", "--output", "-e", "-p", "--attach", "-s", "--string-limit", "-u", "--user")
        | _f("-I", "-a", "--columns", "-b", "--detach-on", "-P", "--trace-path", "-X", "-O", "-S", "-U"),
        flags=_f("-f", "--follow-forks", "-F", "-c", "--summary-only", "-C", "--summary", "-d", "-D")
        | _f("-i", "-k", "-q", "-r", "-t", "-T", "-v", "-w", "-x", "-y", "-z", "-Z", "-n"),
        quiet=_f("-V", "--version", "-h", "--help"),
        opaque=(("-E", "it sets the command's environment"), ("--env", "it sets the command's environment")),
        moves=(
            ("-o", "strace -o writes its trace to a file"),
            ("--output", "strace -o writes its trace to a file"),
        ),
    ),
    "ltrace": Wrapper(
        valued=_f("-o", "--output", "-e", "-p", "-s", "-u", "-n", "--indent", "-a", "--align", "-A", "-D")
        | _f("-F", "--config", "-l", "--library", "-x", "-w", "--where"),
        flags=_f("-b", "--no-signals", "-c", "-C", "--demangle", "-f", "-i", "-r", "-S", "-t", "-T", "-L"),
        quiet=_f("-V", "--version", "-h", "--help"),
        moves=(
            ("-o", "ltrace -o writes its trace to a file"),
            ("--output", "ltrace -o writes its trace to a file"),
        ),
    ),
    "chroot": Wrapper(
        valued=_f("--userspec", "--groups"),
        flags=_f("--skip-chdir"),
        quiet=_f("--help", "--version"),
        operands=1,
        bare_shell=True,
        elsewhere="chroot runs it under another root folder, where its paths name other files",
    ),
    "unshare": Wrapper(
        valued=_f("-S", "--setuid", "-G", "--setgid", "--propagation", "--map-user", "--map-group")
        | _f("--wd", "-R", "--root", "-l", "--load-interp"),
        flags=_f("-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U")
        | _f("--user", "-C", "--cgroup", "-T", "--time", "-f", "--fork", "-r", "--map-root-user")
        | _f("-c", "--map-current-user", "--mount-proc", "--kill-child", "--keep-caps"),
        bare_shell=True,
        moves=(
            ("--wd", "unshare --wd runs it in another folder"),
            ("-R", "unshare --root runs it under another root folder"),
            ("--root", "unshare --root runs it under another root folder"),
        ),
    ),
    "nsenter": Wrapper(
        valued=_f("-t", "--target", "-S", "--setuid", "-G", "--setgid"),
        flags=_f("-a", "--all", "-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p")
        | _f("--pid", "-U", "--user", "-C", "--cgroup", "-T", "--time", "-F", "--no-fork", "-r", "-w")
        | _f("--preserve-credentials", "-Z", "--follow-context", "--root", "--wd"),
        bare_shell=True,
        elsewhere="nsenter runs it in another process's namespaces, where its paths may name other files",
    ),
    "systemd-run": Wrapper(
        valued=_f("-u", "--unit", "-p", "--property", "--description", "--slice", "--uid", "--gid")
        | _f("--nice", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-calendar")
        | _f("--on-unit-inactive", "--timer-property", "--path-property", "--socket-property"),
        flags=_f("--user", "--system", "--scope", "-r", "--remain-after-exit", "--send-sighup", "-t")
        | _f("--pty", "-P", "--pipe", "-q", "--quiet", "--wait", "-G", "--collect", "-d", "--same-dir")
        | _f("--no-block", "--no-ask-password"),
        opaque=(
            ("-E", "it sets the command's environment"),
            ("--setenv", "it sets the command's environment"),
            ("-M", "it runs the command in a container"),
            ("--machine", "it runs the command in a container"),
            ("-H", "it runs the command on another host"),
            ("--host", "it runs the command on another host"),
            ("-S", "systemd-run --shell starts a shell"),
            ("--shell", "systemd-run --shell starts a shell"),
            ("--working-directory", "it runs the command in another folder"),
        ),
        elsewhere="systemd-run runs it as a service, in the service's folder and environment",
    ),
    "fakeroot": Wrapper(
        valued=_f("-s", "-i", "-b"),
        flags=_f("-u", "--unknown-is-real"),
        quiet=_f("-h", "--help", "-v", "--version"),
        opaque=(
            ("-l", "fakeroot -l loads another library"),
            ("--lib", "fakeroot -l loads another library"),
            ("--faked", "fakeroot --faked runs another daemon"),
        ),
        bare_shell=True,
    ),
    "proot": Wrapper(
        valued=_f("-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-q")
        | _f("--qemu", "-k", "--kernel-release", "-R", "-S", "-i", "--change-id", "-v", "--verbose"),
        flags=_f("-0", "--root-id", "-L", "--link2symlink", "-p", "--port", "--kill-on-exit"),
        quiet=_f("-V", "--version", "-h", "--help"),
        bare_shell=True,
        digits=True,  # -0
        moves=tuple(
            (option, "proot mounts other folders where its paths point")
            for option in (
                "-r",
                "--rootfs",
                "-b",
                "--bind",
                "-m",
                "--mount",
                "-w",
                "--pwd",
                "--cwd",
                "-R",
                "-S",
            )
        ),
    ),
    "catchsegv": Wrapper(),
    "caffeinate": Wrapper(valued=_f("-t", "-w"), flags=_f("-d", "-i", "-m", "-s", "-u")),
}


def unwrap(name: str, args: list[Word]) -> Wrapped | Hidden | None:
    """What wrapper ``name`` called with ``args`` runs; ``None`` when ``name`` is no wrapper."""
    special = launched(name, args)
    if special is not None:
        return special
    spec = WRAPPERS.get(name)
    if spec is None:
        return None
    parsed = parse(args, spec.valued, permute=False, longs=spec.flags | spec.quiet, flag_digits=spec.digits)
    script: str | None = None
    unknown = spec.elsewhere or None
    for option in parsed.options:
        if option.name in spec.quiet:
            return Wrapped([])
        reason = dict(spec.opaque).get(option.name)
        if reason is not None:
            return Hidden(f"{name} {option.name}: {reason}")
        unknown = dict(spec.moves).get(option.name, unknown)
        if option.name in spec.scripts and option.value is not None:
            script = option.value.value
        elif option.name not in spec.valued | spec.flags and not (spec.digits and option.name[1:].isdigit()):
            return Hidden(f"{name} is given {option.name}, an option the checker does not know")
    rest = args[parsed.stop :]
    if rest and rest[0].value == "-" and "-" in spec.flags:  # env -: an empty environment
        rest = rest[1:]
    if script is not None:
        if spec.assignments:  # env -S 'cmd' FOO=1: the variables are set, the script runs
            while rest and "=" in rest[0].value and not rest[0].value.startswith("="):
                rest = rest[1:]
        return Wrapped([], " ".join([script, *(w.value for w in rest)]).strip())
    rest = rest[spec.operands :]
    if not rest and (spec.bare_shell or any(option.name in spec.shells for option in parsed.options)):
        return Hidden(f"{name} starts a shell that reads its commands from standard input")
    if name == "flock" and rest and rest[0].value in ("-c", "--command"):
        return Wrapped([], " ".join(w.value for w in rest[1:2]))
    if spec.joins and rest:
        return Wrapped([], " ".join(w.value for w in rest))
    return Wrapped(rest, unknown=unknown if rest else None)
