"""One real turn of the agent loop on a temp project, against the scripted fake model over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config.loader import Layer
from core.message.models import MessageWithParts, ToolPart
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo import FakeModelServer, Turn
from demo.config import fake_model_config
from demo.fake_model import RecordedRequest

GUARD = 30.0  # a turn that never ends fails the test instead of hanging it


@dataclass
class TurnResult:
    answer: MessageWithParts
    history: list[MessageWithParts]
    requests: list[RecordedRequest]

    def tool_parts(self) -> list[ToolPart]:
        """Every tool part of the turn, in order."""
        return [p for m in self.history for p in m.parts if isinstance(p, ToolPart)]


async def run_turn(
    project: Path,
    data_dir: Path,
    *turns: Turn,
    prompt: str = "go",
    tweak: Callable[[dict[str, Any]], None] | None = None,
) -> TurnResult:
    """Script ``turns``, send ``prompt`` in a new session and return what the loop stored and sent."""
    async with FakeModelServer() as main, FakeModelServer() as titles:
        config = fake_model_config(main, titles, retry={"initial_delay": 0.01, "max_attempts": 2})
        if tweak is not None:
            tweak(config)
        main.script(*turns)
        layer = Layer("test", config, None)
        app = await open_agent(project, layers=[layer], data_dir=data_dir)
        try:
            session = await app.create_session()
            text = [TextInput(type="text", text=prompt)]
            answer = await asyncio.wait_for(app.prompt(session.id, text), GUARD)
            history = await app.messages(session.id)
        finally:
            await app.close()
        return TurnResult(answer, history, list(main.requests))
