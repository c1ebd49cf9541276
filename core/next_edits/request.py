"""What the front door's ``next_edit`` takes: one site of a pattern, with the edits that started it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class NextEditRequest(BaseModel):
    """One line to rewrite the way recent edits rewrote others (all text, as the model reads it)."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(max_length=500)  # e.g. "`cout` was renamed to `count`"
    examples: list[str] = Field(default_factory=list, max_length=8)  # recent edits, as unified diffs
    file: str = Field(max_length=1000)  # the site's file, as the user reads its path
    before: str = Field(default="", max_length=20_000)  # the lines above the site
    line: str = Field(max_length=2_000)  # the site's line
    after: str = Field(default="", max_length=20_000)  # the lines below it
