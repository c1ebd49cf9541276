"""The SSE decoder on byte chunks cut anywhere."""

from __future__ import annotations

from core.llm.sse import SSEDecoder


def test_events_split_across_chunks_and_inside_a_utf8_character() -> None:
    raw = 'event: message\r\ndata: {"t": "é"}\r\n\r\n: comment\nid: 7\ndata: a\ndata: b\n\n'.encode()
    decoder = SSEDecoder()
    events = []
    for i in range(len(raw)):  # one byte at a time: every boundary, including mid-character
        events.extend(decoder.feed(raw[i : i + 1]))
    assert events == [("message", '{"t": "é"}'), ("", "a\nb")]
    assert decoder.close() == []


def test_an_event_without_its_final_blank_line_is_delivered_on_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: [DONE]") == []
    assert decoder.close() == [("", "[DONE]")]


def test_data_without_a_space_and_event_names_reset_after_dispatch() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"event: ping\ndata:{}\n\ndata: x\n\n") == [("ping", "{}"), ("", "x")]
