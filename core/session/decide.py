"""What the session loop does next, decided from the history alone (a pure function, tested
without a model, a store or HTTP): stop, run the subtask the user asked for, compact, or run a step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from core.message.models import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    SubtaskPart,
    UserMessage,
)
from core.record import record, struct

# A step that finished for one of these reasons wants another step (the model called tools, or
# the provider did not say why it stopped).
FINISHED_REASONS_THAT_CONTINUE = ("tool-calls", "unknown")

StepOutcome = Literal["continue", "stop", "compact"]


@struct
class Scan:
    """The facts of a history the loop decides on (newest of each kind)."""

    last_user: UserMessage | None = None
    last_assistant: AssistantMessage | None = None
    last_finished: AssistantMessage | None = None
    task: SubtaskPart | CompactionPart | None = None  # asked for by the user after the last answer


@record
class Next:
    """The loop's next move; ``subtask`` is the part to run when ``kind`` is "subtask"."""

    kind: Literal["stop", "subtask", "compact", "step"]
    subtask: SubtaskPart | None = None


def scan(history: Sequence[MessageWithParts]) -> Scan:
    """The newest user message, assistant message, finished answer and pending task part."""
    # By id, not list order: after a compaction the view puts the summary before the kept tail.
    found = Scan()
    for msg in sorted(history, key=lambda m: m.info.id, reverse=True):
        info = msg.info
        if isinstance(info, UserMessage):
            if found.last_user is None:
                found.last_user = info
            if found.task is None and (found.last_finished is None or info.id > found.last_finished.id):
                for part in msg.parts:
                    if isinstance(part, SubtaskPart | CompactionPart):
                        found.task = part
        else:
            if found.last_assistant is None:
                found.last_assistant = info
            if found.last_finished is None and info.finish:
                found.last_finished = info
    return found


def answered(found: Scan) -> bool:
    """Whether the newest user message has its final answer (or an error ended the turn)."""
    last, user = found.last_assistant, found.last_user
    if last is None or user is None or last.id < user.id:
        return False
    if last.error is not None:
        return True
    return bool(last.finish) and last.finish not in FINISHED_REASONS_THAT_CONTINUE


def next_move(found: Scan, overflowed: Callable[[AssistantMessage], bool]) -> Next:
    """The next move of a turn: ``overflowed`` says whether a finished answer filled the context
    window (asked only of the last finished answer that is not a summary)."""
    if answered(found):
        return Next("stop")
    if isinstance(found.task, SubtaskPart):
        return Next("subtask", found.task)
    if isinstance(found.task, CompactionPart):
        return Next("compact")
    last = found.last_finished
    if last is not None and not last.summary and overflowed(last):
        return Next("compact")
    return Next("step")


def after_step(outcome: StepOutcome, last_step: bool) -> StepOutcome:
    """What follows a step: its processor's outcome, except that the agent's last allowed step
    ends the turn however it finished (a step that must compact first still does)."""
    if outcome == "continue" and last_step:
        return "stop"
    return outcome
