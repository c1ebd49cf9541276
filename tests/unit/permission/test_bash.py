"""Permission requests for bash command lines: one per simple command, outside directories first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.permission.arity import always_pattern
from core.permission.bash import bash_requests


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return root


def bash_patterns(command: str, root: Path) -> list[tuple[str, str]]:
    return [
        (r.patterns[0], r.always[0]) for r in bash_requests(command, root, root) if r.permission == "bash"
    ]


def external(command: str, cwd: Path, root: Path) -> list[str]:
    asks = [r for r in bash_requests(command, cwd, root) if r.permission == "external_directory"]
    assert len(asks) <= 1
    return asks[0].patterns if asks else []


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("ls -la", "ls *"),
        ("git checkout -b x", "git checkout *"),
        ("git remote add origin u", "git remote add *"),
        ("npm run build --watch", "npm run build *"),
        ("npm install left-pad", "npm install *"),
        ("docker compose up -d", "docker compose up *"),
        ("docker ps", "docker ps *"),
        ("git", "git *"),
        ("sudo apt-get install x", "sudo apt-get install *"),
        ("timeout 5 npm test", "timeout 5 npm test *"),
        ("sudo -u bob git push origin", "sudo -u bob git push *"),
        ("nice -n 5 env A=1 make all", "nice -n 5 env A=1 make all *"),
        ("strace -f rm x", "strace -f rm *"),
        ("/usr/bin/timeout 5 ls -la", "/usr/bin/timeout 5 ls *"),
        ("xargs rm -f", "xargs rm *"),
        ("timeout 5", "timeout *"),  # no command: the wrapper alone
        ("sh -c ls", "sh *"),  # a script, not a wrapped command: checked on its own
        ("python -m pytest -q", "python -m pytest *"),
        ("unknowncmd a b", "unknowncmd *"),
    ],
)
def test_arity_prefix(words: str, expected: str) -> None:
    assert always_pattern(words.split()) == expected


def test_chain_cannot_hide_commands(project: Path) -> None:
    assert bash_patterns("ls && rm -rf build; git checkout main | cat", project) == [
        ("ls", "ls *"),
        ("rm -rf build", "rm *"),
        ("git checkout main", "git checkout *"),
        ("cat", "cat *"),
    ]


def test_substitutions_and_subshells_are_requests(project: Path) -> None:
    assert [p for p, _ in bash_patterns("(make) && echo $(curl x | sh)", project)] == [
        "make",
        "curl x",
        "sh",
        "echo $(curl x | sh)",
    ]


def test_quoted_operators_stay_in_one_command(project: Path) -> None:
    assert bash_patterns("git commit -m 'a && rm -rf /'", project) == [
        ("git commit -m 'a && rm -rf /'", "git commit *")
    ]


def test_assignments_stay_in_the_always_pattern(project: Path) -> None:
    assert bash_patterns("LD_PRELOAD=x.so ls -la", project) == [
        ("LD_PRELOAD=x.so ls -la", "LD_PRELOAD=x.so ls *")
    ]


def test_duplicate_commands_ask_once(project: Path) -> None:
    assert len(bash_requests("ls; ls", project, project)) == 1


def test_metadata_has_command_and_cwd(project: Path) -> None:
    (req,) = bash_requests("ls", project / "sub", project)
    assert req.metadata == {"command": "ls", "cwd": str(project / "sub")}
    assert req.title == "ls"


def test_inside_paths_ask_nothing_external(project: Path) -> None:
    assert external("cat sub/a ./b; cd sub && ls ..; echo hi > out.txt", project, project) == []


def test_absolute_home_and_dotdot_paths_are_external(project: Path, tmp_path: Path) -> None:
    home = os.path.realpath(os.path.expanduser("~"))
    outside = os.path.realpath(tmp_path / "outside")
    patterns = external("cat ../outside/f; ls ~/x $HOME/y; rm /etc/passwd", project, project)
    assert patterns == [f"{outside}/*", f"{home}/*", "/etc/*"]


def test_external_request_comes_first(project: Path) -> None:
    perms = [r.permission for r in bash_requests("cat /etc/hosts", project, project)]
    assert perms == ["external_directory", "bash"]


def test_cd_target_is_external_and_moves_the_cwd(project: Path, tmp_path: Path) -> None:
    outside = os.path.realpath(tmp_path / "outside")
    assert external(f"cd {outside} && rm file", project, project) == [f"{outside}/*"]
    # after cd .., a relative path resolves against the new directory
    parent = os.path.realpath(tmp_path)
    assert external("cd .. && rm stray", project, project) == [f"{parent}/*"]


def test_redirect_targets_and_option_values_are_checked(project: Path) -> None:
    assert external("echo hi > /tmp/out.txt", project, project) == [f"{os.path.realpath('/tmp')}/*"]
    assert external("tool --output=/etc/conf", project, project) == ["/etc/*"]


def test_symlink_escaping_the_worktree_is_external(project: Path, tmp_path: Path) -> None:
    (project / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    outside = os.path.realpath(tmp_path / "outside")
    assert external("rm link/file", project, project) == [f"{outside}/*"]
    assert external("ls link", project, project) == [f"{outside}/*"]


def test_symlinked_worktree_path_is_inside(tmp_path: Path, project: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(project, target_is_directory=True)
    assert external(f"cat {project}/sub/a", alias, alias) == []


def test_cwd_outside_the_worktree_is_external(project: Path, tmp_path: Path) -> None:
    outside = os.path.realpath(tmp_path / "outside")
    assert external("ls", tmp_path / "outside", project) == [f"{outside}/*"]


def test_urls_globs_and_variables(project: Path) -> None:
    assert external("curl https://example.com/a/b; ls /etc/*.conf; cat $DIR/x", project, project) == [
        "/etc/*"
    ]


def test_echo_arguments_are_text(project: Path) -> None:
    assert external("echo /etc/passwd", project, project) == []


def test_empty_command_has_no_requests(project: Path) -> None:
    assert bash_requests("   ", project, project) == []


def test_a_glob_outside_asks_for_the_folder_it_lists(project: Path, tmp_path: Path) -> None:
    (tmp_path / "outside" / "a").mkdir()
    (tmp_path / "outside" / "b.txt").write_text("b")
    outside = os.path.realpath(tmp_path / "outside")
    assert external("ls ../outside/*", project, project) == [f"{outside}/*"]
    assert external("ls ../outside/a", project, project) == [f"{outside}/a/*"]
