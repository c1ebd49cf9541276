"""JSONC: comments and trailing commas go, strings stay intact, errors carry line:column."""

from __future__ import annotations

import pytest

from core.config import jsonc
from core.errors import ConfigError


def test_plain_json() -> None:
    assert jsonc.loads('{"a": [1, 2], "b": null}', "x") == {"a": [1, 2], "b": None}


def test_line_and_block_comments() -> None:
    text = """
    // leading comment
    {
      "a": 1, // trailing comment
      /* block
         over lines */ "b": 2
    }
    """
    assert jsonc.loads(text, "x") == {"a": 1, "b": 2}


def test_strings_containing_comment_markers_survive() -> None:
    text = '{"url": "http://127.0.0.1:8000/v1", "glob": "src/**/*.py", "s": "/* no */"}'
    assert jsonc.loads(text, "x") == {
        "url": "http://127.0.0.1:8000/v1",
        "glob": "src/**/*.py",
        "s": "/* no */",
    }


def test_escaped_quote_does_not_end_string() -> None:
    assert jsonc.loads(r'{"a": "say \"// hi\"", "b": "c:\\"} // x', "x") == {"a": 'say "// hi"', "b": "c:\\"}


def test_trailing_commas_in_objects_and_arrays() -> None:
    text = '{"a": [1, 2, ], "b": {"c": 1,}, }'
    assert jsonc.loads(text, "x") == {"a": [1, 2], "b": {"c": 1}}


def test_trailing_comma_before_comment_then_brace() -> None:
    text = '{"a": 1, // last\n /* more */ }'
    assert jsonc.loads(text, "x") == {"a": 1}


def test_comma_inside_string_is_not_trailing() -> None:
    assert jsonc.loads('{"a": ",", "b": ",}"}', "x") == {"a": ",", "b": ",}"}


def test_bom_is_accepted() -> None:
    assert jsonc.loads('\ufeff{"a": 1}', "x") == {"a": 1}


def test_syntax_error_has_line_and_column_of_original_text() -> None:
    text = '{\n  // comment\n  "a": 1\n  "b": 2\n}'
    with pytest.raises(ConfigError) as info:
        jsonc.loads(text, "/p/agentls.json")
    assert str(info.value).startswith("/p/agentls.json:4:3: invalid JSON")


def test_double_comma_is_still_an_error() -> None:
    with pytest.raises(ConfigError, match=r"x:1:9: invalid JSON"):
        jsonc.loads('{"a": 1,,}', "x")


def test_unclosed_block_comment() -> None:
    with pytest.raises(ConfigError, match=r"x:2:3: comment opened with /\* is never closed"):
        jsonc.loads('{"a": 1,\n  /* oops\n}', "x")
