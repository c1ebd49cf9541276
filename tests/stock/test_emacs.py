"""Stock Emacs 28 + eglot 1.9 (no agentls plugin) against the real server: one batch session.

The user's setup is an ``eglot-server-programs`` entry and ``global-auto-revert-mode``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tools_env

SCENARIO = Path(__file__).with_name("eglot_scenario.el")


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def emacs() -> str:
    tools_env()  # scripts/tools installs emacs-nox and elpa-eglot
    path = Path("/usr/bin/emacs")
    if not path.exists():
        raise RuntimeError("emacs is not installed: run scripts/tools (apt emacs-nox elpa-eglot)")
    return str(path)


def test_stock_emacs_eglot(tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]) -> None:
    main, titles = models
    project = h.make_project(tmp_path)
    (project.root / "agentls.json").write_text(json.dumps(h.agent_config(main, titles)))
    stalled_at = h.script_model(main, project)
    # 5. an edit of the buffer while it holds unsaved text (the model's turn after the async one).
    main.script(
        Turn.tool_call("edit", h.edit(project.hello, "return 'bye now'", "return 'so long'")),
        Turn.text("Changed once more."),
    )
    h.signal_when(main, stalled_at, project.busy)
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": [f"{k}={v}" for k, v in h.editor_env(project).items()],
        "root": str(project.root) + "/",
        "hello": str(project.hello),
        "unsaved": str(project.unsaved),
        "edited": h.EDITED,
        "model_busy": str(project.busy),
        "result": str(result_path),
        "answers": ["Allow once", "Allow once", None, "Allow once"],  # the third: C-g
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path), "HOME": str(tmp_path)})
    done = h.run_editor([emacs(), "--batch", "-q", "-l", str(SCENARIO)], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert h.gone_within(h.server_pid(project), 2.0), "agentls serve outlived Emacs"
    # The command answered at once (eglot would give up after 10 s and block Emacs meanwhile).
    assert out["edits-command"]["result"]["async"] is True
    read_result = str(main.requests[1].messages)
    assert "only in the buffer" in read_result and "on disk" not in read_result
    edits = out["edits"]
    assert edits["disk"] == h.EDITED and edits["buffer"] == h.EDITED
    assert out["modified-after-edits"] is False
    assert out["conflicts"] == []
    assert out["after-undo"] == h.HELLO
    assert out["after-save"] == h.EDITED + "# the user was here\n"
    assert [d.split(" <- ")[0] for d in out["dialogs"]] == ["Allow once", "Allow once", "C-g", "Allow once"]
    # The dialogs say what would change: the file, +N -M and the lines; the command line.
    edit_dialog = out["dialogs"][0]
    assert "agentls wants to edit hello.py (+1 -1):\n-    return 'hello'\n+    return 'bye'" in edit_dialog
    assert f"agentls wants to run: {h.dismissed_command(project)}" in out["dialogs"][2]
    assert not project.marker.exists()
    assert out["after-abort-seconds"] < 5
    assert any("Right after the cancel" in m for m in out["messages"])
    # eglot ignores $/progress: the steps are echo-area messages there (nothing stops the user), and
    # nothing the server sends makes eglot warn (it warns about every notification it does not know).
    assert any("agentls ✓ edit" in m for m in out["messages"])
    assert [m for m in out["messages"] if "(warning)" in m] == []
    assert len([m for m in out["messages"] if "Edited twice." in m]) == 1  # the answer, once
    # An agent edit of a buffer with unsaved text: no prompt at all, both texts kept; the disk keeps
    # the last save until the user saves, and then has both.
    saved = h.EDITED + "# the user was here\n"
    both = saved.replace("bye now", "so long") + "# unsaved\n"
    assert out["unsaved"] == {"buffer": both, "disk": saved, "modified": True}
    assert out["unsaved-saved"] == both
