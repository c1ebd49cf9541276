"""What /review reviews, in real git repositories: the working tree, a commit, a branch or a pull
request's ref against its base, a range; bad targets said clearly; secrets never in the diff."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.commands.code_review import review_prompt
from core.commands.review_target import resolve_target
from core.errors import InvalidInputError


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    return done.stdout


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, {"calc.py": "def add(a, b):\n    return a + b\n"}, "first")
    commit(root, {"calc.py": "def add(a, b):\n    return a - b\n"}, "second")
    return root


async def test_the_working_tree_with_untracked_files_and_secrets_left_out(repo: Path) -> None:
    (repo / "calc.py").write_text("def add(a, b):\n    return b - a\n")
    (repo / "new.py").write_text("x = 1\n")
    (repo / ".env").write_text("TOKEN=hunter2\n")
    target = await resolve_target(repo, "")
    assert target.label == "the uncommitted changes in the working tree"
    assert "+    return b - a" in target.diff
    assert target.untracked == ("new.py",) and target.secret == (".env",)
    prompt = review_prompt(target)
    assert "hunter2" not in prompt and ".env" in prompt and "new.py" in prompt
    assert "```diff\n" in prompt and "No findings." in prompt


async def test_a_tracked_secret_file_is_named_not_shown(repo: Path) -> None:
    commit(repo, {".env.local": "A=1\n"}, "env")
    (repo / ".env.local").write_text("A=secret-value\n")
    target = await resolve_target(repo, "")
    assert target.secret == (".env.local",) and target.diff == ""
    assert "secret-value" not in review_prompt(target)


async def test_a_commit(repo: Path) -> None:
    target = await resolve_target(repo, "HEAD")
    assert target.label == "the commit HEAD" and target.command == "git show HEAD"
    assert "-    return a + b\n+    return a - b" in target.diff
    first = await resolve_target(repo, "HEAD~1")  # the root commit: against the empty tree
    assert "+def add(a, b):" in first.diff


async def test_a_branch_and_a_pull_request_ref_against_the_base(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {"calc.py": "def add(a, b):\n    return a + b  # fixed\n"}, "fix")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"other.py": "y = 2\n"}, "unrelated on main")
    branch = await resolve_target(repo, "feature")
    assert branch.label == "feature against main" and "# fixed" in branch.diff
    assert "other.py" not in branch.diff  # only what the branch did since it left main
    git(repo, "update-ref", "refs/pull/7/head", "feature")
    pull = await resolve_target(repo, "refs/pull/7/head")
    assert pull.label == "refs/pull/7/head against main" and pull.diff == branch.diff


async def test_a_range(repo: Path) -> None:
    target = await resolve_target(repo, "HEAD~1..HEAD")
    assert target.label == "the changes HEAD~1..HEAD" and "+    return a - b" in target.diff


BAD = [
    ("unknown ref", "nope", "'nope' is not a commit, branch or ref"),
    ("an option", "--output=/tmp/x", "not an option"),
    ("two targets", "HEAD main", "takes one target"),
    ("bad range side", "HEAD..nope", "'nope' is not a commit"),
    ("branch with no base", "main", "no base branch"),
]


@pytest.mark.parametrize(("argument", "message"), [(a, m) for _, a, m in BAD], ids=[n for n, _, _ in BAD])
async def test_bad_targets_say_why(repo: Path, argument: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match="/review") as caught:
        await resolve_target(repo, argument)
    assert message in str(caught.value)


async def test_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="needs a git repository"):
        await resolve_target(tmp_path, "")
