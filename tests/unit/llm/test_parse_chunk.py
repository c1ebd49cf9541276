"""A stream event's JSON: exactly what ``json.loads`` takes as an object, the rest malformed."""

from __future__ import annotations

import json

import pytest

from core.errors import ProviderError
from core.llm.lean import parse_chunk

CASES = [
    '{"choices": []}',
    ' \t{"a": 1}\r\n',
    '{"a": "é \\u00e9"}',
    '{"a": 1} ',
    '{"a": 1} x',
    '{"a": 1}{"b": 2}',
    '{"a": 1',
    "[1, 2]",
    '"text"',
    "42",
    "",
    " ",
    "\u00a0{}",  # not JSON's whitespace
    '{"a": 1}\u00a0',
    "\ufeff{}",
    "{'a': 1}",
    '{"a": NaN}',
]


@pytest.mark.parametrize("data", CASES)
def test_parse_chunk_takes_what_json_loads_takes_as_an_object(data: str) -> None:
    try:
        expected = json.loads(data)
    except ValueError:
        expected = None
    if isinstance(expected, dict):
        assert parse_chunk(data, "prov") == expected
    else:
        with pytest.raises(ProviderError, match="prov sent a malformed stream event") as caught:
            parse_chunk(data, "prov")
        assert not caught.value.retryable
