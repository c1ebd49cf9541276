"""Events on the wire: ``to_wire`` leaves None out at every level, ``from_wire`` reads it back
and refuses what is not an event of that type."""

from __future__ import annotations

import json

import pytest

from core.events import (
    ConfigUpdated,
    Event,
    PartDelta,
    PartUpdated,
    PermissionAsked,
    PermissionRequest,
    SessionError,
    SessionStatus,
    SessionStatusInfo,
)
from core.message.models import MessageError, PartTime, TextPart


def text_part() -> TextPart:
    return TextPart(id="prt_1", sessionID="ses_1", messageID="msg_1", text="hi", time=PartTime(start=1))


def test_the_wire_form_leaves_none_out_of_events_and_of_the_models_they_carry() -> None:
    wire = SessionStatus(sessionID="ses_1", status=SessionStatusInfo(type="busy")).to_wire()
    assert wire == {
        "type": "session.status",
        "properties": {"sessionID": "ses_1", "status": {"type": "busy"}},
    }
    part = PartUpdated(part=text_part()).to_wire()["properties"]["part"]
    assert part["time"] == {"start": 1}
    error = SessionError(error=MessageError(name="api", message="boom")).to_wire()["properties"]
    assert "sessionID" not in error


def test_dicts_keep_their_none_values_and_everything_is_json() -> None:
    event = ConfigUpdated(
        changed=["model"],
        agents=[{"name": "build", "model": None}],
        models=["fake/a"],
        defaultAgent="build",
        modelLimits={"fake/a": {"context": 1000}},
    )
    wire = event.to_wire()
    assert wire["properties"]["agents"] == [{"name": "build", "model": None}]
    assert "defaultModel" not in wire["properties"]
    assert json.loads(json.dumps(wire)) == wire


@pytest.mark.parametrize(
    "event",
    [
        PartDelta(sessionID="ses_1", messageID="msg_1", partID="prt_1", field="text", delta="x"),
        PartUpdated(part=text_part()),
        PermissionAsked(
            request=PermissionRequest(
                id="per_1", sessionID="ses_1", permission="bash", patterns=["ls"], title="ls"
            )
        ),
    ],
    ids=lambda e: type(e).__name__,
)
def test_from_wire_reads_back_what_to_wire_wrote(event: Event) -> None:
    wire = json.loads(json.dumps(event.to_wire()))
    assert Event.from_wire(wire["type"], wire["properties"]) == event


def test_from_wire_refuses_unknown_types_unknown_properties_and_wrong_values() -> None:
    with pytest.raises(ValueError, match="unknown event type 'nope'"):
        Event.from_wire("nope", {})
    with pytest.raises(ValueError, match="extra"):
        Event.from_wire("session.idle", {"sessionID": "ses_1", "extra": 1})
    with pytest.raises(ValueError, match="status"):
        Event.from_wire("session.status", {"sessionID": "ses_1", "status": {"type": "asleep"}})
    with pytest.raises(ValueError, match="sessionID"):
        Event.from_wire("session.idle", {})


def test_events_are_built_by_keyword_only_and_refuse_unknown_fields() -> None:
    with pytest.raises(TypeError):
        PartDelta("ses_1", "msg_1", "prt_1", "text", "x")  # type: ignore[misc]
    with pytest.raises(TypeError):
        PartDelta(sessionID="ses_1", messageID="msg_1", partID="prt_1", field="text", delta="x", extra=1)  # type: ignore[call-arg]
