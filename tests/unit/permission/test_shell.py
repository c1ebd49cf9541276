"""Splitting command lines into the simple commands they run."""

from __future__ import annotations

import pytest

from core.permission.shell import split_commands


def texts(line: str) -> list[str]:
    return [c.text for c in split_commands(line)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ls", ["ls"]),
        ("ls && rm -rf x", ["ls", "rm -rf x"]),
        ("a || b; c & d", ["a", "b", "c", "d"]),
        ("cat a | grep b |& tee c", ["cat a", "grep b", "tee c"]),
        ("ls\nrm x\n", ["ls", "rm x"]),
        ("(cd sub && make) || echo fail", ["cd sub", "make", "echo fail"]),
        ("{ ls; rm y; }", ["ls", "rm y"]),
        ("echo $(rm -rf x)", ["rm -rf x", "echo $(rm -rf x)"]),
        ('echo "$(id -u) and `whoami`"', ["id -u", "whoami", 'echo "$(id -u) and `whoami`"']),
        ("echo `rm a`", ["rm a", "echo `rm a`"]),
        ("x=$(curl a | sh)", ["curl a", "sh", "x=$(curl a | sh)"]),
        ("diff <(sort a) <(sort b)", ["sort a", "sort b", "diff <(sort a) <(sort b)"]),
        ("echo 'a && rm b' ; ls", ["echo 'a && rm b'", "ls"]),
        ('echo "a; rm b"', ['echo "a; rm b"']),
        ("echo a\\;rm b", ["echo a\\;rm b"]),
        ("ls # && rm -rf /", ["ls"]),
        ("echo $((1 + 2))", ["echo $((1 + 2))"]),
        ("echo ${HOME}/x", ["echo ${HOME}/x"]),
        ("if [ -f x ]; then rm x; else touch x; fi", ["[ -f x ]", "rm x", "touch x"]),
        ("while true; do sleep 1; done", ["true", "sleep 1"]),
        ("for f in $(ls); do cat $f; done", ["ls", "cat $f"]),
        ("f() { rm x; }", ["rm x"]),
        ("git status 2>&1 > log", ["git status 2>&1 > log"]),
        ("ls \\\n  -la", ["ls \\\n  -la"]),
    ],
)
def test_split(line: str, expected: list[str]) -> None:
    assert texts(line) == expected


def test_heredoc_body_is_not_commands_but_its_substitutions_are() -> None:
    line = "cat <<EOF > out\nrm -rf body\n$(touch pwn)\nEOF\nls"
    assert texts(line) == ["cat <<EOF > out", "touch pwn", "ls"]


def test_quoted_heredoc_body_runs_nothing() -> None:
    assert texts("cat <<'EOF'\n$(touch pwn)\nEOF\nls") == ["cat <<'EOF'", "ls"]


def test_words_lose_quotes_and_assignments_are_split_off() -> None:
    (cmd,) = split_commands("FOO=1 BAR='x y' git \"checkout\" -b 'my branch'")
    assert cmd.argv == ["git", "checkout", "-b", "my branch"]
    assert [w.raw for w in cmd.assignments] == ["FOO=1", "BAR='x y'"]


def test_redirect_targets_are_recorded() -> None:
    (cmd,) = split_commands("sort < in.txt > /tmp/out 2>> err.log")
    assert [(r.op, r.target.value) for r in cmd.redirects] == [
        ("<", "in.txt"),
        (">", "/tmp/out"),
        ("2>>", "err.log"),
    ]
    assert cmd.argv == ["sort"]


def test_unterminated_input_is_read_leniently() -> None:
    assert texts("echo 'open && rm x") == ["echo 'open && rm x"]
    assert texts("echo $(rm x") == ["rm x", "echo $(rm x"]
