"""Files a bash line writes through redirections ask ``edit``; readers of ``.env`` files ask ``read``."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PermissionDeniedError
from core.permission.bash import bash_requests
from core.permission.request import PermissionAsk
from core.permission.rules import Rule, defaults, evaluate, from_config
from core.tools.bash import BashTool
from core.tools.runner import run_tool
from tests.unit.tools.harness import allow_all


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "logs").mkdir(parents=True)
    return root.resolve()


def asks(command: str, root: Path, kind: str) -> list[list[str]]:
    return [r.patterns for r in bash_requests(command, root, root) if r.permission == kind]


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("echo ok > out.txt", ["out.txt"]),
        ("echo ok >> logs/a.log", ["logs/a.log"]),
        ("echo ok >| out.txt", ["out.txt"]),
        ("make 2> logs/err.txt", ["logs/err.txt"]),
        ("make &> logs/all.txt", ["logs/all.txt"]),
        ("echo a > x.txt && echo b >> logs/y.txt", ["x.txt", "logs/y.txt"]),
        ("cd logs && echo ok > z.txt", ["logs/z.txt"]),
        ("printf '%s' hi | tee -a logs/t.txt", ["logs/t.txt"]),
        ("echo ok 2>&1", []),
        ("echo ok > /dev/null 2>/dev/null", []),
        ("cat < logs/in.txt", []),
        ("cat <<EOF > gen.txt\nhello\nEOF", ["gen.txt"]),
    ],
)
def test_redirections_inside_the_worktree_ask_edit_for_each_file(
    project: Path, command: str, written: list[str]
) -> None:
    assert asks(command, project, "edit") == [[w] for w in written]


def test_the_edit_request_names_the_file_and_can_be_approved_for_it(project: Path) -> None:
    (request,) = [r for r in bash_requests("echo ok > out.txt", project, project) if r.permission == "edit"]
    assert request.always == ["out.txt"]
    assert request.metadata["filepath"] == str(project / "out.txt")
    assert "out.txt" in request.title


def test_dev_null_is_not_outside_the_project(project: Path) -> None:
    assert asks("make > /dev/null 2>&1", project, "external_directory") == []
    assert asks("make > /tmp/x.log", project, "external_directory") == [["/tmp/*"]]


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ("cat .env", [".env"]),
        ("head -n 3 config/prod.env", ["config/prod.env"]),
        ("grep KEY .env.local", [".env.local"]),
        ("source .env", [".env"]),
        (". ./.env", [".env"]),
        ("sort < .env", [".env"]),
        ("cat .env.example", [".env.example"]),
        ("echo .env", []),  # text, not a file read
        ("cat README.md", []),
    ],
)
def test_commands_naming_env_files_ask_read_for_them(project: Path, command: str, read: list[str]) -> None:
    assert asks(command, project, "read") == [[r] for r in read]


def decisions(command: str, root: Path, rules: list[Rule]) -> dict[tuple[str, str], str]:
    return {
        (r.permission, r.patterns[0]): evaluate(r.permission, r.patterns[0], defaults(), rules).action
        for r in bash_requests(command, root, root)
    }


def test_under_an_echo_allow_rule_a_redirection_still_asks_edit(project: Path) -> None:
    rules = from_config({"bash": {"echo *": "allow"}, "edit": "ask"})
    assert decisions("echo ok > out.txt", project, rules) == {
        ("bash", "echo ok > out.txt"): "allow",
        ("edit", "out.txt"): "ask",
    }


def test_reading_env_through_bash_is_decided_like_the_read_tool(project: Path) -> None:
    rules = from_config({"bash": "allow"})
    assert decisions("cat .env", project, rules)[("read", ".env")] == "ask"
    assert decisions("cat .env.example", project, rules)[("read", ".env.example")] == "allow"


async def test_a_denied_redirection_target_is_never_written(project: Path, tmp_path: Path) -> None:
    rules = from_config({"bash": {"echo *": "allow"}, "edit": "deny"})

    async def ask(request: PermissionAsk) -> None:
        if evaluate(request.permission, request.patterns[0], defaults(), rules).action == "deny":
            raise PermissionDeniedError(f"{request.permission} {request.patterns[0]} is denied")

    ctx = allow_all(project, tmp_path / "data")
    ctx.ask = ask
    with pytest.raises(PermissionDeniedError):
        await run_tool(BashTool(), {"command": "echo secret > out.txt"}, ctx)
    assert not (project / "out.txt").exists()
