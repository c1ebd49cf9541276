"""What the bash check says in its dialogs, and where it stops reading a line."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.permission import searches
from core.permission.bash import MAX_COMMAND_CHARS, bash_requests
from core.permission.request import PermissionAsk
from core.permission.shell import MAX_WORDS
from core.permission.words import MAX_GLOBS
from core.tools.bash import BashTool
from core.tools.runner import run_tool
from tests.unit.tools.harness import allow_all


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / ".env").write_text("x")
    (root / "sub" / "prod.env").write_text("x")
    return root.resolve()


def test_a_wrapped_command_is_asked_with_its_wrapper_and_the_dialog_says_what_runs_it(project: Path) -> None:
    (bash,) = [r for r in bash_requests("nice -n 5 rm x", project, project) if r.permission == "bash"]
    assert bash.patterns == ["nice -n 5 rm x", "rm x"] and bash.always == ["nice -n 5 rm *", "rm *"]
    assert bash.title == "nice -n 5 rm x (runs rm through nice)"
    (bash,) = [r for r in bash_requests("sudo nice /bin/rm x", project, project) if r.permission == "bash"]
    assert bash.patterns == ["sudo nice /bin/rm x", "nice /bin/rm x", "/bin/rm x", "rm x"]
    assert bash.title == "sudo nice /bin/rm x (runs nice through sudo, runs rm through nice)"


def test_commands_a_script_runs_are_asked_one_by_one(project: Path) -> None:
    bash = [r for r in bash_requests("sh -c 'ls; rm x'", project, project) if r.permission == "bash"]
    assert [r.patterns for r in bash] == [["sh -c 'ls; rm x'"], ["ls"], ["rm x"]]
    assert bash[2].title == "rm x (runs rm through sh -c)"


def test_a_program_named_by_its_path_is_also_matched_by_its_name(project: Path) -> None:
    (request,) = [r for r in bash_requests("X=1 /bin/rm -f x", project, project) if r.permission == "bash"]
    assert request.patterns == ["X=1 /bin/rm -f x", "rm -f x"]
    assert request.always == ["X=1 /bin/rm *", "rm *"]
    (git,) = bash_requests("git -C sub -c color.ui=never push origin", project, project)
    assert git.patterns[1] == "git push origin" and "git push *" in git.always


def test_a_line_over_the_size_limit_asks_whole_and_says_why(project: Path) -> None:
    command = "echo " + "x" * MAX_COMMAND_CHARS
    unknown, whole = bash_requests(command, project, project)
    assert unknown.permission == "unknown_path" and whole.permission == "bash"
    assert unknown.patterns == [command] and whole.patterns == [command]
    assert f"{len(command):,} characters long" in unknown.title and len(unknown.title) < 600
    assert whole.metadata["length"] == str(len(command)) and len(whole.metadata["command"]) <= 200
    # The line travels once, as the pattern: no "always" copy ("always" approves the pattern) and
    # no copy as the key of metadata.reasons.
    assert unknown.always == [] and whole.always == []
    assert all(len(word) <= 200 for word in unknown.metadata["reasons"])
    assert len(repr([unknown.metadata, whole.metadata])) < 2_000


def test_a_line_of_too_many_words_asks_whole(project: Path) -> None:
    command = "ls " + " ".join(f"f{i}" for i in range(MAX_WORDS))
    assert len(command) < MAX_COMMAND_CHARS
    unknown, _ = bash_requests(command, project, project)
    assert unknown.permission == "unknown_path" and f"more than {MAX_WORDS:,} words" in unknown.title


def test_a_line_expands_a_bounded_number_of_patterns(project: Path) -> None:
    line = "; ".join(f"ls sub/f{i}*" for i in range(MAX_GLOBS + 1))
    (unknown,) = [r for r in bash_requests(line, project, project) if r.permission == "unknown_path"]
    assert unknown.patterns == [f"sub/f{MAX_GLOBS}*"] and f"more than {MAX_GLOBS} patterns" in unknown.title
    line = "; ".join(f"ls sub/f{i}*" for i in range(MAX_GLOBS))
    assert all(r.permission == "bash" for r in bash_requests(line, project, project))


def test_a_search_of_a_folder_too_large_to_list_asks_for_its_secrets(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searches, "MAX_ENTRIES", 2)
    for index in range(3):
        (project / "sub" / f"f{index}.txt").write_text("x")
    reads = [
        r.patterns for r in bash_requests("grep -r TOKEN sub", project, project) if r.permission == "read"
    ]
    assert reads == [["sub/*.env"]]
    reads = [r.patterns for r in bash_requests("grep -r TOKEN .", project, project) if r.permission == "read"]
    assert reads == [["*.env"]]


def test_searches_on_one_line_share_the_listing_budget(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searches, "MAX_ENTRIES", 3)  # sub holds 1 entry, the project 3 in all
    reads = [
        r.patterns[0]
        for r in bash_requests("grep -r A sub; grep -r B .", project, project)
        if r.permission == "read"
    ]
    assert reads == ["sub/prod.env", "*.env"]  # the second listing went past the line's budget
    again = "grep -r A sub; grep -r B sub; grep -r C sub"  # the same folder is listed once
    reads = [r.patterns[0] for r in bash_requests(again, project, project) if r.permission == "read"]
    assert reads == ["sub/prod.env"]


def test_a_search_names_each_secret_it_reads(project: Path) -> None:
    reads = [
        r.patterns[0] for r in bash_requests("grep -rl TOKEN .", project, project) if r.permission == "read"
    ]
    assert reads == [".env", "sub/prod.env"]
    hidden_skipped = [
        r.patterns[0] for r in bash_requests("rg TOKEN", project, project) if r.permission == "read"
    ]
    assert hidden_skipped == ["sub/prod.env"]


def test_a_search_of_an_unknown_or_outside_folder_asks_as_that(project: Path, tmp_path: Path) -> None:
    kinds = {r.permission for r in bash_requests("grep -r TOKEN $DIR", project, project)}
    assert kinds == {"unknown_path", "bash"}
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".env").write_text("x")
    kinds = {r.permission for r in bash_requests(f"grep -r TOKEN {outside}", project, project)}
    assert kinds == {"external_directory", "bash"}


async def test_the_bash_tool_checks_a_command_off_the_event_loop(project: Path, tmp_path: Path) -> None:
    threads: list[threading.Thread] = []

    def requests(command: str, cwd: Path, worktree: Path) -> list[PermissionAsk]:
        threads.append(threading.current_thread())
        return bash_requests(command, cwd, worktree)

    await run_tool(BashTool(requests), {"command": "true"}, allow_all(project, tmp_path / "data"))
    assert threads and threads[0] is not threading.main_thread()
