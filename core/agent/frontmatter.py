"""Markdown files with a YAML front matter block (agents, skills): ``---`` / mapping / ``---`` / body."""

from __future__ import annotations

from typing import Any

from core.errors import InvalidInputError


class FrontMatterError(InvalidInputError):
    """The front matter of a Markdown file is not a valid YAML mapping."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter mapping (empty when there is none) and the body after it."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            header = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            break
    else:
        raise FrontMatterError("the front matter opened with --- is never closed with ---")
    import yaml  # PyYAML, imported with the first front matter: most projects have none

    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"the front matter is not valid YAML: {exc}") from exc
    if data is None:
        return {}, body
    if not isinstance(data, dict):
        raise FrontMatterError(f"the front matter must be a mapping of keys, not {type(data).__name__}")
    return {str(k): v for k, v in data.items()}, body
