"""The loop's decisions as a pure function of the history: no model, no store, no HTTP."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core import ids
from core.message.models import (
    AnyPart,
    AssistantMessage,
    CompactionPart,
    MessageError,
    MessageWithParts,
    SubtaskPart,
    UserMessage,
)
from core.session.decide import Next, StepOutcome, after_step, next_move, scan
from tests.unit.storage import factories as f

SESSION = "ses_decide"


def user(*parts: Callable[[str], AnyPart]) -> MessageWithParts:
    info = f.user(SESSION)
    return MessageWithParts(info=info, parts=[make(info.id) for make in parts])


def answer(
    to: MessageWithParts, finish: str | None, *, error: bool = False, summary: bool = False
) -> MessageWithParts:
    info = f.assistant(SESSION, to.info.id)
    info.finish = finish
    info.summary = summary
    if error:
        info.error = MessageError(name="api", message="the provider failed")
    return MessageWithParts(info=info, parts=[])


def subtask(message_id: str) -> SubtaskPart:
    return SubtaskPart(
        id=ids.ascending("prt"),
        sessionID=SESSION,
        messageID=message_id,
        prompt="look",
        description="d",
        agent="explore",
    )


def compaction(message_id: str) -> CompactionPart:
    return CompactionPart(id=ids.ascending("prt"), sessionID=SESSION, messageID=message_id, auto=False)


def never(_: AssistantMessage) -> bool:
    return False


def always(_: AssistantMessage) -> bool:
    return True


def case_fresh_prompt() -> list[MessageWithParts]:
    return [user()]


def case_answered() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, "stop")]


def case_tool_calls() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, "tool-calls")]


def case_unknown_finish() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, "unknown")]


def case_error() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, None, error=True)]


def case_unfinished() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, None)]


def case_new_prompt_after_an_answer() -> list[MessageWithParts]:
    u = user()
    return [u, answer(u, "stop"), user()]


def case_subtask() -> list[MessageWithParts]:
    return [user(subtask)]


def case_compaction() -> list[MessageWithParts]:
    return [user(compaction)]


@pytest.mark.parametrize(
    ("history", "overflowed", "expected"),
    [
        (case_fresh_prompt, always, "step"),  # nothing finished yet: nothing can have overflowed
        (case_answered, always, "stop"),
        (case_tool_calls, never, "step"),
        (case_tool_calls, always, "compact"),  # the tool results filled the window
        (case_unknown_finish, never, "step"),
        (case_error, always, "stop"),  # an error ends the turn
        (case_unfinished, never, "step"),
        (case_new_prompt_after_an_answer, never, "step"),
        (case_compaction, never, "compact"),
    ],
)
def test_next_move(
    history: Callable[[], list[MessageWithParts]],
    overflowed: Callable[[AssistantMessage], bool],
    expected: str,
) -> None:
    assert next_move(scan(history()), overflowed).kind == expected


def test_a_subtask_the_user_asked_for_runs_before_anything_else() -> None:
    history = case_subtask()
    move = next_move(scan(history), always)
    assert move == Next("subtask", history[0].parts[0])


def test_a_summary_that_overflows_is_not_compacted_again() -> None:
    u = user()
    history = [u, answer(u, "tool-calls", summary=True)]
    assert next_move(scan(history), always).kind == "step"


def test_the_scan_orders_by_id_not_by_list_position() -> None:
    # After a compaction the history view puts the summary before the kept tail.
    u = user()
    done = answer(u, "stop")
    found = scan([done, u])
    assert isinstance(found.last_user, UserMessage) and found.last_user.id == u.info.id
    assert found.last_finished is done.info
    assert next_move(found, never).kind == "stop"


def test_a_subtask_answered_already_is_not_run_again() -> None:
    u = user(subtask)
    history = [u, answer(u, "stop")]
    assert scan(history).task is None


@pytest.mark.parametrize(
    ("outcome", "last_step", "expected"),
    [
        ("continue", False, "continue"),
        ("continue", True, "stop"),  # the agent's step limit ends the turn
        ("stop", False, "stop"),
        ("compact", True, "compact"),  # the window is full: compacting comes first
    ],
)
def test_after_step(outcome: StepOutcome, last_step: bool, expected: StepOutcome) -> None:
    assert after_step(outcome, last_step) == expected
