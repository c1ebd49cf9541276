"""URI templates as MCP resource templates use them: variables, expansion (values encoded as RFC
6570 says), and which URIs a template makes (table-driven)."""

from __future__ import annotations

import pytest

from core.errors import InvalidInputError
from core.uri_template import expand_template, template_matches, template_variables


@pytest.mark.parametrize(
    ("template", "names"),
    [
        ("notes://{name}", ("name",)),
        ("repo://{owner}/{repo}/blob{/path*}{?ref,plain}", ("owner", "repo", "path", "ref", "plain")),
        ("db://{table}/{table}", ("table",)),
        ("plain://readme", ()),
    ],
)
def test_variables(template: str, names: tuple[str, ...]) -> None:
    assert template_variables(template) == names


@pytest.mark.parametrize(
    ("template", "values", "uri"),
    [
        ("notes://{name}", {"name": "a b/c"}, "notes://a%20b%2Fc"),  # simple: reserved characters encoded
        ("files://{+path}", {"path": "src/a b.py"}, "files://src/a%20b.py"),  # reserved kept
        ("doc://x{#part}", {"part": "top"}, "doc://x#top"),
        ("repo://r{/path}", {"path": "main"}, "repo://r/main"),
        ("search://q{?term,page}", {"term": "mcp", "page": "2"}, "search://q?term=mcp&page=2"),
        ("search://q?a=1{&term}", {"term": "x&y"}, "search://q?a=1&term=x%26y"),
        ("m://{a}{.ext}", {"a": "file", "ext": "md"}, "m://file.md"),
        ("m://x{;v}", {"v": "1"}, "m://x;v=1"),
    ],
)
def test_expansion(template: str, values: dict[str, str], uri: str) -> None:
    assert expand_template(template, values) == uri


def test_a_variable_without_a_value_is_refused() -> None:
    with pytest.raises(InvalidInputError, match=r"notes://\{name\} needs name"):
        expand_template("notes://{name}", {"name": ""})


@pytest.mark.parametrize(
    ("template", "uri", "matches"),
    [
        ("notes://{name}", "notes://plan", True),
        ("notes://{name}", "notes://a/b", False),  # a simple expression takes no slash
        ("notes://{name}", "notes://", False),
        ("files://{+path}", "files://src/a.py", True),
        ("notes://{name}", "other://plan", False),
        ("n.x://{id}", "nax://1", False),  # the template's literal dots are literal
    ],
)
def test_matching(template: str, uri: str, matches: bool) -> None:
    assert template_matches(template, uri) is matches
