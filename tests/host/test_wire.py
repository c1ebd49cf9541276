"""The host's wire, its codec and the front end's mirror, without processes: frames, the error
table, every Agent method's arguments and results through JSON and back."""

from __future__ import annotations

import asyncio
import json

import pytest

import core.errors as errors
from core.api_types import ConfigInfo, ModelLimits
from core.events import (
    PlanComment,
    PlanReviewAsked,
    PlanReviewCancelled,
    PlanReviewReplied,
    PlanReviewRequest,
    QueueAdded,
    QueuedPrompt,
    QueueRemoved,
    QueueStarted,
    QueueUpdated,
)
from core.message.prompt_input import TextInput
from core.plan.review import PlanAnswer
from core.remote import codec
from core.remote.connection import described, raised
from core.remote.mirror import Mirror
from core.remote.wire import WireError, encode, read_message


async def frames(data: bytes, limit: int = 1024) -> list[object]:
    reader = asyncio.StreamReader(limit=limit)
    reader.feed_data(data)
    reader.feed_eof()
    found = []
    while (message := await read_message(reader)) is not None:
        found.append(message)
    return found


async def test_messages_are_lines_of_json() -> None:
    line = encode({"text": "a\nb ünï"})
    assert line.count(b"\n") == 1
    assert await frames(line + encode({"n": 2})) == [{"text": "a\nb ünï"}, {"n": 2}]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{}\n{"cut', "the stream ended inside a message"),
        (b"nope\n", "not JSON"),
        (b"[1]\n", "not a JSON object"),
        (b"\xff\n", "not JSON"),
        (b"x" * 2048 + b"\n", "longer than"),
    ],
    ids=["cut-off", "not-json", "array", "not-utf8", "oversized"],
)
async def test_a_broken_stream_is_a_wire_error(data: bytes, says: str) -> None:
    with pytest.raises(WireError, match=says):
        await frames(data)


@pytest.mark.parametrize(
    "error",
    [
        errors.NotFoundError("no session ses_1"),
        errors.InvalidInputError("bad"),
        errors.ConfigError("no model"),
        errors.BusyError("busy"),
        errors.AbortedError("aborted"),
        errors.ProviderError("no key", kind="auth", status=401, retryable=False, retry_after=None),
        errors.ContextOverflowError("too long"),
        errors.CompactionFailedError("could not compact"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_cores_errors_cross_as_themselves(error: errors.AgentError) -> None:
    back = raised(json.loads(json.dumps(described(error))))
    assert type(back) is type(error) and str(back) == str(error)
    if isinstance(error, errors.ProviderError):
        assert isinstance(back, errors.ProviderError)
        assert (back.kind, back.status, back.retryable) == (error.kind, error.status, error.retryable)


def test_any_other_failure_is_named_as_the_hosts() -> None:
    back = raised(described(KeyError("x")))
    assert not isinstance(back, errors.NotFoundError)
    assert "the host failed: KeyError" in str(back)


def test_every_agent_method_travels_except_events_and_close() -> None:
    names = codec.callable_methods()
    assert {"prompt", "create_session", "review", "dialogs.reply_permission", "dialogs.answer"} <= names
    assert not {"subscribe", "listen", "close"} & names


def test_arguments_and_results_survive_json() -> None:
    args = {"session_id": "ses_1", "parts": [TextInput(type="text", text="hi")], "mode": "queue"}
    data = json.loads(json.dumps(codec.dump_args("prompt", args)))
    assert codec.load_args("prompt", data)["parts"][0] == TextInput(type="text", text="hi")
    info = ConfigInfo(
        agents=(),
        models=("a/b",),
        default_agent="build",
        default_model="a/b",
        model_limits={"a/b": ModelLimits(context=10, output=2)},
    )
    assert (
        codec.load_result("config_info", json.loads(json.dumps(codec.dump_result("config_info", info))))
        == info
    )
    blob = bytes(range(256))
    assert codec.load_result("file_at_snapshot", codec.dump_result("file_at_snapshot", blob)) == blob


@pytest.mark.parametrize(
    ("method", "args", "says"),
    [
        ("_private", {}, "no such method"),
        ("close", {}, "no such method"),
        ("get_session", {"session_id": "s", "extra": 1}, "takes no argument extra"),
        ("list_sessions", {"limit": "many"}, "not a"),
    ],
)
def test_a_call_that_does_not_fit_the_protocol_is_refused(
    method: str, args: dict[str, object], says: str
) -> None:
    with pytest.raises(errors.InvalidInputError, match=says):
        codec.load_args(method, args)


def _opened() -> dict[str, object]:
    info = ConfigInfo(agents=(), models=("a/b",), default_agent="build", default_model="a/b")
    return {
        "permissions": [],
        "questions": [],
        "queued": {},
        "busy": [],
        "facts": {"config_info": codec.dump_result("config_info", info), "checks": {"": None, "a/b": None}},
    }


def test_the_mirror_follows_the_queue() -> None:
    mirror = Mirror(_opened())

    def item(n: int) -> QueuedPrompt:
        return QueuedPrompt(id=f"qpr_{n}", sessionID="s", parts=[TextInput(type="text", text=str(n))], time=n)

    mirror.apply(QueueAdded(sessionID="s", item=item(1), position=0))
    mirror.apply(QueueAdded(sessionID="s", item=item(2), position=1))
    mirror.apply(QueueAdded(sessionID="s", item=item(0), position=0))  # stop and send: the front
    assert [i.id for i in mirror.queues["s"]] == ["qpr_0", "qpr_1", "qpr_2"]
    changed = item(1).model_copy(update={"parts": [TextInput(type="text", text="edited")]})
    mirror.apply(QueueUpdated(sessionID="s", item=changed))
    assert mirror.queued_prompt("s", "qpr_1").parts[0].text == "edited"  # type: ignore[union-attr]
    mirror.apply(QueueStarted(sessionID="s", id="qpr_0"))
    mirror.apply(QueueRemoved(sessionID="s", id="qpr_2", reason="removed"))
    assert [i.id for i in mirror.queues["s"]] == ["qpr_1"]
    with pytest.raises(errors.NotFoundError):
        mirror.queued_prompt("s", "qpr_2")


def test_the_mirror_answers_model_checks_from_the_hosts_facts() -> None:
    opened = _opened()
    opened["facts"]["checks"]["a/b"] = described(  # type: ignore[index]
        errors.ProviderError("no key for a", kind="auth")
    )
    mirror = Mirror(opened)
    assert mirror.check_model(None) == "a/b"
    with pytest.raises(errors.ProviderError, match="no key for a"):
        mirror.check_model("a/b")
    with pytest.raises(errors.ConfigError, match="not among the models"):
        mirror.check_model("x/y")
    assert mirror.model_limits("x/y") == ModelLimits()


def test_the_mirror_follows_plan_reviews_and_a_plan_answer_survives_json() -> None:
    request = PlanReviewRequest(id="pln_1", sessionID="s", path=".agentls/plans/p.md", text="# P\n1. do\n")
    mirror = Mirror({**_opened(), "plans": codec.dump_result("dialogs.pending_plans", [request])})
    assert list(mirror.plans) == ["pln_1"]
    mirror.apply(PlanReviewReplied(sessionID="s", requestID="pln_1", reply="revise"))
    mirror.apply(PlanReviewAsked(request=request.model_copy(update={"id": "pln_2"})))
    assert list(mirror.plans) == ["pln_2"]
    mirror.apply(PlanReviewCancelled(sessionID="s", requestID="pln_2"))
    assert mirror.plans == {}
    answer = PlanAnswer("revise", "more tests", (PlanComment(line=1, text="which?"),))
    args = {"request_id": "pln_1", "answer": answer}
    data = json.loads(json.dumps(codec.dump_args("dialogs.reply_plan", args)))
    assert codec.load_args("dialogs.reply_plan", data)["answer"] == answer
