"""Attachments in a prompt: what the client sent reaches the model, and one attachment that
cannot be attached never fails the prompt (the model is told instead). Official SDK client."""

from __future__ import annotations

import json
from typing import Any

from demo.fake_script import Turn
from tests.acp.conftest import Acp


def user_text(body: object) -> str:
    assert isinstance(body, dict)
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = user["content"]
    if isinstance(content, str):
        return content
    return "\n".join(c.get("text", "") for c in content if isinstance(c, dict))


def link(path: Any) -> dict[str, Any]:
    return {"type": "resource_link", "uri": path.as_uri(), "name": path.name}


def embedded(path: Any, text: str) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": path.as_uri(), "mimeType": "text/x-python", "text": text}}


async def test_folders_unsaved_files_and_embedded_text_reach_the_model(acp: Acp) -> None:
    project = acp.project
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("x = 1\n")
    (project / "pkg" / "sub").mkdir()
    acp.model.script(Turn.text("Seen."), Turn.text("Seen again."))
    prompts = [
        [
            {"type": "text", "text": "Look at these."},
            link(project / "pkg"),
            link(project / "missing.py"),
            embedded(project / "hello.py", "print('from the editor buffer')\n"),
            embedded(project / "unsaved.py", "draft = True\n"),
        ],
        [{"type": "text", "text": "and only a missing one"}, link(project / "gone.py")],
    ]
    run = await acp.run("blocks", PROMPTS=json.dumps(prompts))
    assert run.failure is None, run.failure
    assert run.results["answers"] == [{"stopReason": "end_turn"}, {"stopReason": "end_turn"}]
    text = user_text(acp.model.requests[0].body)
    assert "Look at these." in text
    assert '<directory path="pkg">\nmod.py\nsub/\n</directory>' in text
    assert "missing.py, but it could not be attached" in text
    assert "from the editor buffer" in text and "print('hello')" not in text  # what the client sent
    assert '<file path="unsaved.py">' in text and "draft = True" in text
    second = user_text(acp.model.requests[1].body)
    assert "and only a missing one" in second and "gone.py, but it could not be attached" in second
    assert run.agent_exit == 0
