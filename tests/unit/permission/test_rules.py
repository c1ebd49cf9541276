"""Rule evaluation: last match wins, wildcards, optional trailing ` *`, home expansion, config shapes."""

from __future__ import annotations

import os

import pytest

from core.permission.rules import Rule, defaults, disabled, evaluate, from_config, wildcard_match

HOME = os.path.expanduser("~")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("*", "anything/at/all", True),
        ("*", "", True),
        ("src/*", "src/a/b.py", True),
        ("src/*", "lib/a.py", False),
        ("*.py", "deep/dir/x.py", True),
        ("*.py", "x.pyc", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("git status *", "git status", True),
        ("git status *", "git status -s", True),
        ("git status *", "git statusx", False),
        ("git *", "github", False),
        ("ls", "ls -la", False),
        ("a.b", "aXb", False),  # regex characters are literal
        ("(x)+", "(x)+", True),
        ("echo *", "echo a\nb", True),
        ("~/notes/*", f"{HOME}/notes/a.md", True),
        ("$HOME/notes/*", f"{HOME}/notes/a.md", True),
        ("${HOME}/*", f"{HOME}/x", True),
        ("~", HOME, True),
        ("~/notes/*", "~/notes/a.md", False),
    ],
)
def test_wildcard_match(pattern: str, text: str, expected: bool) -> None:
    assert wildcard_match(pattern, text) is expected


def test_last_matching_rule_wins() -> None:
    rules = [
        Rule("edit", "*", "allow"),
        Rule("edit", "*.env", "ask"),
        Rule("edit", "node_modules/*", "deny"),
    ]
    assert evaluate("edit", "src/a.ts", rules).action == "allow"
    assert evaluate("edit", "config/.env", rules).action == "ask"
    assert evaluate("edit", "node_modules/x/.env", rules).action == "deny"
    # reversed order: the general allow now comes last and wins
    assert evaluate("edit", "node_modules/x", list(reversed(rules))).action == "allow"


def test_later_rulesets_override_earlier_ones() -> None:
    base = [Rule("bash", "*", "deny")]
    user = [Rule("bash", "git *", "allow")]
    assert evaluate("bash", "git log", base, user).action == "allow"
    assert evaluate("bash", "rm x", base, user).action == "deny"
    assert evaluate("bash", "git log", user, base).action == "deny"


def test_nothing_matches_means_ask() -> None:
    rule = evaluate("webfetch", "https://x", [Rule("bash", "*", "allow")])
    assert rule == Rule("webfetch", "*", "ask")
    assert evaluate("read", "a").action == "ask"


def test_permission_names_match_with_wildcards() -> None:
    rules = [Rule("*", "*", "deny"), Rule("mcp_*", "*", "allow")]
    assert evaluate("mcp_echo", "x", rules).action == "allow"
    assert evaluate("bash", "x", rules).action == "deny"


@pytest.mark.parametrize(
    ("permission", "pattern", "expected"),
    [
        ("edit", "src/a.py", "ask"),  # edits ask
        ("edit", ".env", "ask"),
        ("bash", "rm -rf x", "ask"),  # commands ask
        ("bash", "npm install", "ask"),
        ("bash", "ls -la", "allow"),  # read-only commands run
        ("bash", "git status --short", "allow"),
        ("bash", "git diff HEAD~1", "allow"),
        ("bash", "git branch", "allow"),
        ("bash", "git branch -a -v", "allow"),
        ("bash", "git branch new-feature", "ask"),
        ("bash", "git branch -D main", "ask"),
        ("bash", "git push", "ask"),
        ("bash", "find . -name '*.py'", "allow"),
        # What a read-only command writes or runs through an option (sort -o, find -delete,
        # rg --pre) is asked by the checker's other requests: see test_bash_forms.py.
        ("bash", "LD_PRELOAD=x.so ls", "ask"),  # an assignment prefix is not the read-only command
        ("bash", "lsblk", "ask"),
        ("webfetch", "https://example.com", "ask"),
        ("read", "src/a.py", "allow"),
        ("read", ".env", "ask"),
        ("read", "sub/.env.local", "ask"),
        ("read", "sub/.env.example", "allow"),
        ("glob", "**/*.py", "allow"),
        ("grep", "TODO", "allow"),
        ("list", "src", "allow"),
        ("todowrite", "*", "allow"),
        ("doom_loop", "read", "ask"),
        ("external_directory", "/tmp/*", "ask"),
        ("unknown_path", "$OUT/f", "ask"),
    ],
)
def test_defaults(permission: str, pattern: str, expected: str) -> None:
    assert evaluate(permission, pattern, defaults()).action == expected


def test_allow_everything_is_one_setting() -> None:
    rules = [*defaults(), *from_config("allow")]
    for permission, pattern in [
        ("edit", "a.py"),
        ("bash", "rm -rf x"),
        ("unknown_path", "$X"),
        ("webfetch", "*"),
    ]:
        assert evaluate(permission, pattern, rules).action == "allow"


def test_from_config_shapes_keep_order() -> None:
    assert from_config(None) == []
    assert from_config("deny") == [Rule("*", "*", "deny")]
    rules = from_config({"edit": "ask", "bash": {"*": "ask", "git *": "allow", "git push *": "deny"}})
    assert rules == [
        Rule("edit", "*", "ask"),
        Rule("bash", "*", "ask"),
        Rule("bash", "git *", "allow"),
        Rule("bash", "git push *", "deny"),
    ]
    assert evaluate("bash", "git push origin", rules).action == "deny"
    assert evaluate("bash", "git pull", rules).action == "allow"


def test_disabled_tools() -> None:
    rules = [*defaults(), *from_config({"*": "deny", "read": "allow", "grep": "allow"})]
    assert disabled(["read", "grep", "bash", "edit", "write"], rules) == {"bash", "edit", "write"}


def test_edit_deny_disables_write_tools_but_a_partial_deny_does_not() -> None:
    assert disabled(["edit", "write", "read"], [Rule("edit", "*", "deny")]) == {"edit", "write"}
    partial = [Rule("edit", "*", "deny"), Rule("edit", ".agentls/plans/*", "allow")]
    assert disabled(["edit", "write"], partial) == set()
    assert disabled(["bash"], [Rule("bash", "rm *", "deny")]) == set()
