"""What a confined command's output says the sandbox blocked, and the note the model reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.sandbox.blocked import find_blocked
from core.sandbox.policy import SandboxPolicy

CWD = Path("/work/project")
SOMEWHERE = "a path outside the writable folders"


def policy(network: bool = False, mode: str = "workspace-write") -> SandboxPolicy:
    return SandboxPolicy(
        mode=mode,  # type: ignore[arg-type]
        writable=(CWD,),
        read_only=(),
        hidden=(),
        network=network,
        env_pass=(),
        tmpdir=Path("/tmp/agentls-tmp-x"),
    )


@pytest.mark.parametrize(
    ("output", "what"),
    [
        ("OSError: [Errno 30] Read-only file system: '/tmp/x-outside'", "writing to /tmp/x-outside"),
        ("rm: cannot remove '/home/u/some-dir/a': Read-only file system", "writing to /home/u/some-dir/a"),
        ("touch: cannot touch '.git/config': Read-only file system", "writing to /work/project/.git/config"),
        ("/bin/bash: line 1: .env: Read-only file system", "writing to /work/project/.env"),
        ("/bin/bash: line 1: /etc/hosts: Read-only file system", "writing to /etc/hosts"),
        ("Error: EROFS: read-only file system, open '/opt/x'", "writing to /opt/x"),  # Node's wording
        ("mkdir: cannot create directory '/opt/a': Read-only file system\n"
         "mkdir: cannot create directory '/opt/b': Read-only file system", "writing to /opt/a, /opt/b"),
        ("cp: cannot create regular file: Read-only file system", f"writing to {SOMEWHERE}"),
        ("everything went fine", None),
    ],
)  # fmt: skip
def test_a_refused_write_is_named_with_its_path(output: str, what: str | None) -> None:
    found = [b.what for b in find_blocked(policy(), output, CWD) if b.what.startswith("writing")]
    assert found == ([what] if what else [])


@pytest.mark.parametrize(
    "output",
    [
        "urllib.error.URLError: <urlopen error [Errno 111] Connection refused>",
        "curl: (7) Failed to connect to 127.0.0.1 port 8000: Couldn't connect to server",
        "curl: (6) Could not resolve host: example.com",
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
        "OSError: [Errno 101] Network is unreachable",
        "npm ERR! getaddrinfo failed registry.npmjs.org",
    ],
)
def test_a_refused_connection_is_named_when_the_network_is_off(output: str) -> None:
    (blocked,) = find_blocked(policy(), output, CWD)
    assert blocked.what == "network access"
    assert "The sandbox (workspace-write) blocked network access" in blocked.note
    assert '"network": {"allow": ["*"]}' in blocked.note
    assert find_blocked(policy(network=True), output, CWD) == []


def test_the_write_note_says_how_to_allow_it() -> None:
    (blocked,) = find_blocked(policy(), "OSError: [Errno 30] Read-only file system: '/srv/x'", CWD)
    assert blocked.note.startswith("The sandbox (workspace-write) blocked writing to /srv/x")
    assert '"writable": [...]' in blocked.note and '"mode": "full"' in blocked.note
    (ro,) = find_blocked(policy(mode="read-only"), "x: '/srv/x': Read-only file system", CWD)
    assert "in read-only mode only the temp dir ($TMPDIR) is writable" in ro.note
