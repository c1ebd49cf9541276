"""Record the event streams the rendering tests replay, from a real ``agentls serve`` run.

    .venv/bin/python -m tests.nvim.record_fixtures

Each scenario scripts the fake model, runs ``specs/record.lua`` in a headless Neovim with the plugin
against the real server, and writes ``fixtures/<name>.json``: the ``agent/event`` notifications as
they arrived and the messages the server stored at the end.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.nvim.harness import Nvim

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def edit_turn(project: Path) -> list[Turn]:
    hello = str(project / "hello.py")
    return [
        Turn.reasoning("The greeting is in hello.py.\nI should change it.", chunks=6)
        .text("I will change the greeting.\n\nFirst, the edit:", chunks=12)
        .tool_call("edit", {"filePath": hello, "oldString": "hello", "newString": "bye"}, fragments=3),
        Turn.text("Done: `hello.py` now prints **bye**.\n\n- one change\n- no test needed", chunks=30).usage(
            input=1200, output=80, cache_read=300
        ),
    ]


def retry_turn(project: Path) -> list[Turn]:
    return [Turn.fault(503), Turn.text("Back after a retry.", chunks=5)]


SCENARIOS: dict[str, tuple[str, Callable[[Path], list[Turn]]]] = {
    "edit_turn": ("say bye instead of hello", edit_turn),
    "retry_turn": ("hello?", retry_turn),
}


def record(name: str) -> Path:
    prompt, script = SCENARIOS[name]
    out = FIXTURES / f"{name}.json"
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeModelServer.threaded() as model,
        FakeModelServer.threaded() as titles,
    ):
        titles.script(*[Turn.text("A title") for _ in range(5)])
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (project / "hello.py").write_text("print('hello')\n")
        model.script(*script(project))
        nvim = Nvim(home, project, model, titles, {"permission": {"edit": "ask"}})
        nvim.run("record.lua", AGENTLS_RECORD_TO=str(out), AGENTLS_RECORD_PROMPT=prompt).check()
        # Stable, readable files: the temporary directory's path replaced.
        text = json.dumps(json.loads(out.read_text()), indent=1, sort_keys=True)
        for prefix in (str(Path(tmp).resolve()), tmp):
            text = text.replace(prefix, "/tmp/agentls-fixture")
    out.write_text(text + "\n")
    return out


def main(argv: list[str]) -> int:
    for name in argv or list(SCENARIOS):
        print(record(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
