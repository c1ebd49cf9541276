"""The text of a stock client's permission dialog: what would change, bounded, safe for a terminal."""

from __future__ import annotations

from typing import Any

import pytest

from core.events import PermissionRequest
from core.tools.diff import file_diff
from lsp_server.plain_messages import MAX_CHANGED_LINES, MAX_LINE, permission_message


def request(permission: str, patterns: list[str], title: str, **metadata: Any) -> PermissionRequest:
    return PermissionRequest(
        id="per_1",
        sessionID="ses_1",
        permission=permission,
        patterns=patterns,
        title=title,
        metadata=metadata,
    )


def edit(before: str, after: str, title: str = "Edit a.py") -> PermissionRequest:
    return request("edit", ["a.py"], title, filepath="/p/a.py", diff=file_diff("a.py", before, after).diff)


MANY_BEFORE = "".join(f"line {i}\n" for i in range(20))
MANY_AFTER = "".join(f"LINE {i}\n" for i in range(20))
ESCAPES = "print('\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07')\r\n"


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        pytest.param(
            edit("a\nb\n", "a\nB\n"),
            "agentls wants to edit a.py (+1 -1):\n-b\n+B",
            id="an edit: file, counts, lines",
        ),
        pytest.param(
            edit("", "x\ny\n", title="Write a.py"),
            "agentls wants to write a.py (+2 -0):\n+x\n+y",
            id="a new file",
        ),
        pytest.param(
            edit("same\n", "same\n"),
            "agentls wants to edit a.py (+0 -0):\n(no change to the text)",
            id="no change",
        ),
        pytest.param(
            request("bash", ["git push"], "git push", command="git push", cwd="/p"),
            "agentls wants to run: git push",
            id="a command",
        ),
        pytest.param(
            request("bash", ["rm -rf build"], "rm -rf build", command="make && rm -rf build", cwd="/p"),
            "agentls wants to run: rm -rf build\n(part of: make && rm -rf build)",
            id="one command of a longer line",
        ),
        pytest.param(
            request("bash", ["make"], "make (runs without a sandbox)", command="make", sandbox="none"),
            "agentls wants to run: make\n(runs without a sandbox)",
            id="a command that runs without a sandbox",
        ),
        pytest.param(
            request("edit", ["out.txt"], "Edit out.txt", command="echo hi > out.txt", cwd="/p"),
            "agentls wants permission for edit: out.txt\nfor the command: echo hi > out.txt",
            id="a file a command writes",
        ),
        pytest.param(
            request("webfetch", ["https://example.com"], "Fetch the page"),
            "agentls wants permission for webfetch: https://example.com — Fetch the page",
            id="anything else",
        ),
    ],
)
def test_the_dialog_says_what_would_change(asked: PermissionRequest, expected: str) -> None:
    assert permission_message(asked) == expected


def test_a_long_change_is_bounded_and_counted() -> None:
    text = permission_message(edit(MANY_BEFORE, MANY_AFTER))
    lines = text.splitlines()
    assert lines[0] == "agentls wants to edit a.py (+20 -20):"
    assert len(lines) == 1 + MAX_CHANGED_LINES + 1
    assert lines[-1] == f"… {40 - MAX_CHANGED_LINES} more changed lines"
    long = permission_message(edit("x\n", "y" * 5000 + "\n"))
    assert max(len(line) for line in long.splitlines()) == MAX_LINE


def test_control_characters_never_reach_the_terminal() -> None:
    for asked in (
        edit("", ESCAPES),
        request("bash", [ESCAPES], ESCAPES, command=ESCAPES, cwd="/p"),
        request("read", [ESCAPES], ESCAPES),
    ):
        text = permission_message(asked)
        assert all(ch == "\n" or ch.isprintable() for ch in text), repr(text)
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text
