"""Load prompt texts from the top-level ``prompts`` package (files, never string literals in code)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    """The text of ``prompts/<name>`` (e.g. ``system/anthropic.md``), trailing newline stripped."""
    return resources.files("prompts").joinpath(name).read_text(encoding="utf-8").rstrip("\n")
