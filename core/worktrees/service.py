"""Create, list, diff, merge and discard the worktrees agentls made for a repository.

Each worktree's facts (name, branch, the commit it started from, the user's checkout) are kept in a
small JSON file beside it, so ``agentls worktrees`` can list them without asking the sessions.
A merge first commits what the agent left uncommitted in its worktree (on its own branch, never in
the user's checkout), then merges that branch into the branch the user's checkout has out: a
fast-forward, a merge commit or a squash. Git refuses a merge that would overwrite the user's
uncommitted changes (reported with the files; nothing changes); a conflict is left in the checkout
for the user, with the files listed and how to back out.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from core.errors import InvalidInputError, NotFoundError
from core.worktrees.git import GitError, git, out

BRANCH_PREFIX = "agentls/"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
MergeHow = Literal["merge", "squash", "ff-only"]


@dataclass(frozen=True, slots=True)
class Worktree:
    """One worktree agentls made: where, on which branch, from which commit of which checkout."""

    name: str
    path: Path
    branch: str
    base: str
    repo: Path
    created: float


@dataclass(frozen=True, slots=True)
class Status:
    """What a worktree holds beyond its base: files changed (committed or not) and whether its
    branch is already in the checkout's current branch."""

    changed: list[str]
    uncommitted: int
    merged: bool
    missing: bool = False


@dataclass(frozen=True, slots=True)
class Merged:
    """How a merge ended: ``merged``, ``conflict`` (files left for the user) or ``refused``
    (git changed nothing: the checkout's own uncommitted changes, a fast-forward not possible…)."""

    outcome: Literal["merged", "conflict", "refused"]
    message: str
    files: list[str]


def repository(directory: Path) -> Path:
    """The top level of the git checkout holding ``directory``; InvalidInputError outside git."""
    done = git(directory, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise InvalidInputError(
            f"{directory} is not in a git repository: a worktree session needs git "
            "(run `git init` and commit once, or start the session without a worktree)"
        )
    top = Path(done.stdout.strip()).resolve()
    if git(top, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
        raise InvalidInputError(f"{top} has no commit yet: a worktree starts from one (commit once first)")
    return top


def home(data_dir: Path, repo: Path) -> Path:
    """The folder of ``repo``'s worktrees in the data folder."""
    key = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    return data_dir / "worktrees" / f"{repo.name}-{key}"


def default_name() -> str:
    """A fresh name when the user gives none (the time, to the second)."""
    return time.strftime("%Y%m%d-%H%M%S")


def create(repo: Path, name: str, data_dir: Path) -> Worktree:
    """A new worktree of ``repo`` on a new branch ``agentls/<name>`` from the checkout's HEAD."""
    if not _NAME.fullmatch(name):
        raise InvalidInputError(
            f"{name!r} is not a usable worktree name: letters, digits, '.', '_' and '-', "
            "starting with a letter or digit, at most 63 characters"
        )
    branch = BRANCH_PREFIX + name
    if git(repo, "check-ref-format", "--branch", branch, check=False).returncode != 0:
        raise InvalidInputError(f"{name!r} does not make a valid git branch name ({branch})")
    folder = home(data_dir, repo)
    path = folder / name
    if path.exists() or (folder / f"{name}.json").exists():
        raise InvalidInputError(f"a worktree named {name!r} exists already ({path}): choose another name")
    if git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).returncode == 0:
        raise InvalidInputError(f"the branch {branch} exists already: choose another name")
    base = out(repo, "rev-parse", "HEAD")
    folder.mkdir(parents=True, exist_ok=True)
    git(repo, "worktree", "add", "--quiet", "-b", branch, str(path), base)
    made = Worktree(name=name, path=path.resolve(), branch=branch, base=base, repo=repo, created=time.time())
    _write_facts(folder / f"{name}.json", made)
    return made


def every(repo: Path, data_dir: Path) -> list[Worktree]:
    """The worktrees agentls made for ``repo``, oldest first."""
    folder = home(data_dir, repo)
    found = [_read_facts(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return sorted((w for w in found if w is not None), key=lambda w: w.created)


def find(repo: Path, name: str, data_dir: Path) -> Worktree:
    """The worktree called ``name``; NotFoundError naming the ones there are."""
    for made in every(repo, data_dir):
        if made.name == name:
            return made
    names = ", ".join(w.name for w in every(repo, data_dir)) or "none"
    raise NotFoundError(f"no worktree named {name!r} for {repo} (there are: {names})")


def owning(directory: Path, data_dir: Path) -> Worktree | None:
    """The worktree agentls made that holds ``directory``, or None (the user's own checkout, or a
    folder that is no worktree of ours). Path arithmetic and one small read: no git."""
    top = (data_dir / "worktrees").resolve()
    resolved = directory.resolve()
    if not resolved.is_relative_to(top):
        return None
    inside = resolved.relative_to(top).parts
    if len(inside) < 2:
        return None
    made = _read_facts(top / inside[0] / f"{inside[1]}.json")
    return made if made is not None and made.path == top / inside[0] / inside[1] else None


def status(made: Worktree) -> Status:
    """What ``made`` changed since its base, and whether its branch is in the checkout's HEAD
    (merged, or squashed: its files there as on the branch)."""
    if not made.path.is_dir():
        return Status(changed=[], uncommitted=0, merged=False, missing=True)
    # Not stripped: each line's first two columns are its state, a leading space included.
    pending = [line for line in git(made.path, "status", "--porcelain").stdout.splitlines() if line]
    committed = out(made.path, "diff", "--name-only", made.base, "HEAD").splitlines()
    untracked_or_changed = [line[3:] for line in pending]
    merged = not pending and _in_checkout(made, committed)
    return Status(sorted(set(committed) | set(untracked_or_changed)), len(pending), merged)


def _in_checkout(made: Worktree, committed: list[str]) -> bool:
    """Whether the checkout's HEAD holds the branch: merged into it, or squashed (every file the
    branch changed is in HEAD as on the branch)."""
    if git(made.repo, "merge-base", "--is-ancestor", made.branch, "HEAD", check=False).returncode == 0:
        return True
    if not committed:
        return False
    same = git(made.repo, "diff", "--quiet", made.branch, "HEAD", "--", *committed, check=False)
    return same.returncode == 0


def diff(made: Worktree) -> str:
    """Everything the worktree changed since its base, new files included, as a unified diff."""
    _stage_all(made)
    return git(made.path, "diff", "--cached", "--no-color", made.base).stdout


def merge(made: Worktree, how: MergeHow = "merge") -> Merged:
    """Commit what the worktree left uncommitted, then merge its branch into the checkout."""
    if not made.path.is_dir():
        raise InvalidInputError(f"the worktree {made.name} is gone ({made.path}): discard it")
    _commit_pending(made)
    current = git(made.repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    if not current:
        return Merged(
            "refused", f"{made.repo} has no branch checked out (a detached HEAD): check one out first", []
        )
    if current == made.branch:
        return Merged("refused", f"{made.repo} has {made.branch} itself checked out", [])
    if how == "ff-only":
        args = ["merge", "--ff-only", made.branch]
    elif how == "squash":
        args = ["merge", "--squash", made.branch]
    else:
        args = [
            "merge",
            "--no-ff",
            "--no-edit",
            "-m",
            f"Merge {made.branch} (agentls worktree session)",
            made.branch,
        ]
    done = git(made.repo, *args, check=False)
    if done.returncode == 0:
        if how == "squash" and _staged(made.repo):
            git(made.repo, "commit", "--quiet", "-m", f"{made.branch} (agentls worktree session, squashed)")
        return Merged("merged", f"{made.branch} merged into {current}", status(made).changed)
    conflicted = out(made.repo, "diff", "--name-only", "--diff-filter=U").splitlines()
    if conflicted:
        back_out = "git merge --abort" if how != "squash" else "git reset --merge"
        return Merged(
            "conflict",
            f"merging {made.branch} into {current} left conflicts in {len(conflicted)} file(s): resolve "
            f"them and commit, or back out with `{back_out}`",
            conflicted,
        )
    said = (done.stderr or done.stdout).strip()
    return Merged("refused", f"git did not merge {made.branch}: {said}", _files_in(said))


def discard(made: Worktree) -> None:
    """Remove the worktree, its branch and its facts (whatever it held is gone)."""
    if made.path.exists():
        done = git(made.repo, "worktree", "remove", "--force", str(made.path), check=False)
        if done.returncode != 0:
            shutil.rmtree(made.path, ignore_errors=True)
    git(made.repo, "worktree", "prune", check=False)
    git(made.repo, "branch", "-D", made.branch, check=False)
    (made.path.parent / f"{made.name}.json").unlink(missing_ok=True)


def stale(repo: Path, data_dir: Path) -> list[Worktree]:
    """Worktrees with nothing left to merge (their branch is in the checkout's HEAD and nothing is
    uncommitted) or whose folder is gone."""
    found = []
    for made in every(repo, data_dir):
        state = status(made)
        if state.missing or state.merged:
            found.append(made)
    return found


def _commit_pending(made: Worktree) -> None:
    _stage_all(made)
    if _staged(made.path):
        git(made.path, "commit", "--quiet", "-m", f"agentls worktree session {made.name}")


def _stage_all(made: Worktree) -> None:
    git(made.path, "add", "--all")


def _staged(cwd: Path) -> bool:
    return git(cwd, "diff", "--cached", "--quiet", check=False).returncode == 1


def _files_in(said: str) -> list[str]:
    """The files git lists (indented) in a refusal such as "would be overwritten by merge"."""
    return [line.strip() for line in said.splitlines() if line.startswith(("\t", "    "))]


def _write_facts(path: Path, made: Worktree) -> None:
    facts = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(made).items()}
    path.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")


def _read_facts(path: Path) -> Worktree | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Worktree(
            name=str(data["name"]),
            path=Path(data["path"]),
            branch=str(data["branch"]),
            base=str(data["base"]),
            repo=Path(data["repo"]),
            created=float(data["created"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


__all__ = [
    "GitError",
    "Merged",
    "Status",
    "Worktree",
    "create",
    "diff",
    "discard",
    "every",
    "find",
    "merge",
    "owning",
]
