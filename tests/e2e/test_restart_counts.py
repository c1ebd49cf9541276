"""Token counts survive a restart: the first request of a reopened session does not re-tokenise it."""

from __future__ import annotations

from pathlib import Path

from core.context.encoding import Encoder
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory, HarnessFactory, text_of


class MeasuringEncoder:
    """A real encoder that remembers how many characters it was given."""

    def __init__(self, inner: Encoder) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def encode_ordinary(self, text: str) -> list[int]:
        self.texts.append(text)
        return self.inner.encode_ordinary(text)


async def test_first_request_after_a_restart_reuses_the_stored_part_counts(
    make_app: AppFactory, make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    (project / "big.py").write_text("".join(f"value_{i} = compute({i}, 'x')\n" for i in range(1_500)))
    # Usable: 28,000 tokens, room for the system prompt and tool specs (~6k) and the read output
    # (~42 kB, ~18k tokens) without compacting; that output is too big for the pre-flight's byte
    # bound, so the history has to be counted exactly at every step.
    first = await make_app(context=32_000)
    session = await first.create_session()
    model.script(Turn.tool_call("read", {"filePath": "big.py"}), Turn.text("read it"))
    await first.prompt(session.id, [TextInput(text="read big.py")])
    await first.close()

    harness = await make_harness(context=32_000)

    second = harness.agent
    counter = harness.wiring.context.counter(harness.wiring.choice.resolve("fake/m"))
    assert counter.exact, "the offline cl100k encoding must load for this test"
    assert counter._encoder is not None
    measuring = MeasuringEncoder(counter._encoder)
    counter._encoder = measuring
    model.script(Turn.text("again"))
    answer = await second.prompt(session.id, [TextInput(text="and now?")])
    assert text_of(answer) == "again"
    # The request was counted exactly (the new prompt was tokenised), but the tool output was
    # counted by the first process and not tokenised again.
    assert any("and now?" in t for t in measuring.texts)
    assert not any("value_7 = compute" in t for t in measuring.texts)
