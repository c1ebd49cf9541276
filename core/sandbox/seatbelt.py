"""The macOS backend: a Seatbelt profile for ``sandbox-exec``, written from the policy.

Written and unit-tested as text: no macOS runs these tests. Reading is allowed everywhere; writing
is denied except under the writable roots, where the read-only carve-outs are excluded with
``require-not`` (so the result does not depend on the order the rules are read in), and the
device files a shell writes to (``/dev/null``, terminals, ``/dev/fd``). Without network, IP traffic
in and out is denied; Unix sockets stay (the system's own services use them).
"""

from __future__ import annotations

from core.sandbox.policy import SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"

_DEVICES = (
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/tty")',
    '(regex #"^/dev/fd/")',
)


def quote(text: str) -> str:
    """``text`` as an SBPL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def seatbelt_profile(policy: SandboxPolicy) -> str:
    """The SBPL profile that confines a command by ``policy``."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    for root in policy.writable:
        inner = [f"(subpath {quote(str(p))})" for p in policy.read_only if root in p.parents or p == root]
        target = f"(subpath {quote(str(root))})"
        if inner:
            target = f"(require-all {target} " + " ".join(f"(require-not {i})" for i in inner) + ")"
        lines.append(f"(allow file-write* {target})")
    lines.append("(allow file-write* " + " ".join(_DEVICES) + ")")
    for path in policy.hidden:
        kind = "subpath" if path.is_dir() else "literal"
        lines.append(f"(deny file-read* file-write* ({kind} {quote(str(path))}))")
    if not policy.network:
        lines += [
            "(deny network-outbound (remote ip))",
            "(deny network-inbound (local ip))",
            "(deny network-bind (local ip))",
        ]
    return "\n".join(lines) + "\n"


def seatbelt_argv(policy: SandboxPolicy) -> list[str]:
    """``sandbox-exec -p PROFILE``: what goes before the command."""
    return [SANDBOX_EXEC, "-p", seatbelt_profile(policy)]
