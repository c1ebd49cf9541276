"""The one policy type every backend confines a command by: what it may write, whether it has a
network, which variables it keeps. Built from the ``sandbox`` config at each spawn (``.env`` files
created since the last command count too); the backends (``bubblewrap``, ``seatbelt``) only
translate it.

``workspace-write`` (the default) makes writable: the project (its worktree root and the folder
agentls was opened in), a private temp dir (``TMPDIR``), the package managers' caches that exist
(``CACHE_DIRS``) and the folders ``sandbox.writable`` adds. Inside those stay read-only: ``.git``,
``.agentls``, ``.env*`` at the top of each writable root, and agentls's own config, data and cache
folders (a command that could write the approvals store or the config would give itself every
permission). A ``sandbox.writable`` entry naming one of them (``.git``) lifts that. ``read-only``
keeps only the private temp dir writable. ``full``: no sandbox.

In both confined modes the folders and files where credentials live (``HIDDEN_HOME``: ``~/.ssh``,
``~/.aws``, ``~/.netrc``, …) and agentls's own config (provider keys) are hidden: commands see an
empty folder or an empty file there. ``sandbox.readable`` shows one again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from core.config.paths import cache_dir, config_dir, data_dir
from core.config.schema import SandboxConfig, SandboxMode
from core.record import record

# Tool caches a build writes to (only those that exist are bound): ~/.cache covers pip, uv, go-build,
# ccache, pre-commit, node-gyp; the others are where npm, cargo, Go modules, Maven and Gradle keep theirs.
CACHE_DIRS = (
    ".cache",
    ".npm",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
)
PROTECTED_NAMES = (".git", ".agentls")
# Where credentials live in a home folder: hidden from commands (an empty folder, an empty file),
# with agentls's own config (provider keys). ``sandbox.readable`` shows one again.
HIDDEN_HOME = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".config/gh",
    ".config/hub",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
)


@record
class SandboxPolicy:
    """What a confined command may do. Paths are resolved and exist."""

    mode: SandboxMode
    writable: tuple[Path, ...]  # roots, shortest first (a backend binds parents before children)
    read_only: tuple[Path, ...]  # carve-outs inside ``writable``
    hidden: tuple[Path, ...]  # shown empty: credential folders and files
    network: bool
    env_pass: tuple[str, ...]
    tmpdir: Path
    hosts: tuple[str, ...] = ()  # without network: reached through the proxy without asking

    @property
    def confined(self) -> bool:
        """Whether there is anything to confine (``full`` is no sandbox)."""
        return self.mode != "full"


def build_policy(config: SandboxConfig, project: Iterable[Path], tmpdir: Path) -> SandboxPolicy:
    """The policy for ``config`` in a project whose roots are ``project`` (worktree, folder)."""
    home = Path(os.path.expanduser("~"))
    roots = [p.resolve() for p in project]
    extra = [_expand(entry, roots[0], home) for entry in config.writable]
    writable: list[Path] = [tmpdir.resolve()]
    if config.mode == "workspace-write":
        writable += roots + [home / name for name in CACHE_DIRS]
    writable += extra
    writable = _existing_unique(writable)
    lifted = set(extra)
    guarded = [config_dir(), data_dir(), cache_dir()]
    for root in writable:
        guarded += [root / name for name in PROTECTED_NAMES]
        guarded += sorted(root.glob(".env*"))
    read_only = [
        path
        for path in _existing_unique(guarded)
        if path not in lifted and any(_inside(path, root) for root in writable)
    ]
    shown = lifted | {_expand(entry, roots[0], home) for entry in config.readable}
    # The data folder stays readable: the model is told to search the full outputs kept there.
    secret = [home / name for name in HIDDEN_HOME] + [config_dir()]
    hidden = [
        path
        for path in _existing_unique(secret)
        # Never what holds the project (agentls opened in ~/.ssh is asked for it).
        if path not in shown and not any(_inside(root, path) for root in roots)
    ]
    return SandboxPolicy(
        mode=config.mode,
        writable=tuple(writable),
        read_only=tuple(p for p in read_only if p not in hidden),
        hidden=tuple(hidden),
        network=config.network.allow == ["*"],
        hosts=tuple(h for h in config.network.allow if h != "*"),
        env_pass=tuple(config.env.pass_),
        tmpdir=tmpdir.resolve(),
    )


def _expand(entry: str, project: Path, home: Path) -> Path:
    if entry == "~" or entry.startswith("~/"):
        return (home / entry[2:]).resolve()
    return (project / entry).resolve()  # an absolute entry replaces the project part


def _existing_unique(paths: Iterable[Path]) -> list[Path]:
    seen: dict[Path, None] = {}
    for path in paths:
        resolved = path.resolve()
        if resolved.exists():
            seen.setdefault(resolved, None)
    return sorted(seen, key=lambda p: (len(p.parts), str(p)))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
