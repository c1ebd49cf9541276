"""The in-process demo (`agentls demo --in-process`): a scripted turn straight through the loop.

The default `agentls demo` (lsp_server.demo_cmd) runs the same turn through the LSP server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from cli.render import Transcript
from core.api import Layer
from core.events import Event, PermissionAsked
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo import scenario
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn


def demo_config(main: FakeModelServer, titles: FakeModelServer) -> dict[str, object]:
    """The fake servers as the model, asking before every edit, with step snapshots on."""
    return fake_model_config(
        main, titles, context=200_000, output=8_000, permission={"edit": "ask"}, snapshot=True
    )


async def demo(args: argparse.Namespace | None = None) -> int:
    """Run the scripted turn and print the transcript as it streams."""
    out = sys.stdout
    out.write("agentls demo — a SCRIPTED model (no network) fixing a bug in a sample project\n\n")
    with tempfile.TemporaryDirectory(prefix="agentls-demo-") as tmp:
        root = scenario.make_project(Path(tmp) / "project")
        async with FakeModelServer() as main, FakeModelServer() as titles:
            main.script(*scenario.turns(sys.executable))
            titles.script(Turn.text("Fix the add bug in calc.py"))
            layer = Layer("demo", demo_config(main, titles), None)
            app = await open_agent(root, layers=[layer], data_dir=Path(tmp) / "data")
            try:
                session = await app.create_session()
                out.write(f"project: {root}\nprompt:  {scenario.PROMPT}\n\n")
                transcript = Transcript(session.id, out)
                replies: set[asyncio.Task[None]] = set()

                def on_event(event: Event) -> None:
                    transcript.handle(event)
                    if isinstance(event, PermissionAsked):
                        out.write("  (demo answers: allow once)\n")
                        task = asyncio.create_task(app.dialogs.reply_permission(event.request.id, "once"))
                        replies.add(task)
                        task.add_done_callback(replies.discard)

                remove = app.listen(on_event)
                answer = await app.prompt(session.id, [TextInput(type="text", text=scenario.PROMPT)])
                remove()
                transcript.finish()
                fixed = (root / "calc.py").read_text()
                title = (await app.get_session(session.id)).title
                out.write(f"\nsession title: {title}\ncalc.py now: {fixed.splitlines()[1].strip()}\n")
                diff = await app.diff(session.id)
                for file in diff:
                    out.write(f"changed {file.file}: +{file.additions} -{file.deletions}\n")
                ok = "return a + b" in fixed and answer.info.role == "assistant"
                return 0 if ok else 1
            finally:
                await app.close()
