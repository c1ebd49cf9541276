"""The Linux backend: bubblewrap (``bwrap``) in an unprivileged user namespace.

The whole file system is bound read-only, then the policy's writable roots are bound writable over
it and its read-only carve-outs read-only again, parents before children, so a write anywhere else
fails with ``EROFS`` ("Read-only file system"). Without network the command gets its own network
namespace: a loopback of its own and nothing else. ``--die-with-parent`` ends the sandbox with the
command's shell; the process group is kept (no ``--new-session``), so the tools' group kill and the
reaper reach every process inside.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from core.record import record
from core.sandbox.policy import SandboxPolicy

PROBE_TIMEOUT_S = 10.0


@record
class Probe:
    """Whether bubblewrap can confine commands on this machine, and why not when it cannot."""

    works: bool
    detail: str  # the bwrap found, or the reason it cannot be used
    path: str | None


def bwrap_argv(bwrap: str, policy: SandboxPolicy, cwd: str | None) -> list[str]:
    """The ``bwrap`` arguments that confine a command by ``policy``, up to and including ``--``
    (``cwd`` None: no ``--chdir``, for a zygote that changes folder per command)."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--die-with-parent"]
    if not policy.network:
        argv.append("--unshare-net")
    for path in policy.writable:
        argv += ["--bind", str(path), str(path)]
    for path in policy.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    for path in policy.hidden:  # an empty read-only folder, or an empty file
        if path.is_dir():
            argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            # Not /dev/null: a bound device file cannot be read under --ro-bind's nodev.
            argv += ["--ro-bind", str(empty_file(policy)), str(path)]
    if cwd is not None:
        argv += ["--chdir", cwd]
    return [*argv, "--"]


def empty_file(policy: SandboxPolicy) -> Path:
    """The empty file that stands for a hidden one: beside the private temp dir, not inside it
    (a command could write into it there)."""
    return policy.tmpdir.with_name(policy.tmpdir.name + ".empty")


def probe() -> Probe:
    """Try the smallest sandbox once: bwrap present, and user and network namespaces usable."""
    path = shutil.which("bwrap")
    if path is None:
        return Probe(False, "bubblewrap (bwrap) is not installed", None)
    argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(False, f"{path} could not be run: {exc}", path)
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        return Probe(False, f"{path} cannot create a sandbox here (user namespaces off?): {why}", path)
    return Probe(True, path, path)
