"""The review model: the agent's changes as hunks with a state, and what keep/undo answer.

Field names are the wire names (camelCase): these models travel unchanged to editors in the
``agent/review/*`` answers and the ``review.updated`` event, and are stored as JSON rows.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

HunkState = Literal["pending", "kept", "undone"]
# text: lines changed in a UTF-8 file; created / deleted: the agent made or removed the whole
# file; binary: a file that is not UTF-8 text, changed as a whole.
HunkKind = Literal["text", "created", "deleted", "binary"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)  # built at first use


class HunkAgent(_Model):
    """The sub-agent whose step made a hunk (shown in the review of the session that started it)."""

    sessionID: str  # the sub-agent's session
    name: str  # the sub-agent (``general``, ...)
    description: str  # the task's short description


class Hunk(_Model):
    """One change the agent made to one file in one step."""

    id: str
    sessionID: str
    messageID: str
    stepID: str  # the step's patch part
    file: str  # worktree-relative, ``/`` separators
    kind: HunkKind
    state: HunkState = "pending"
    # 0-based line indexes: of the step's before version and of the agent's version after the step.
    beforeStart: int = 0
    before: list[str] = []
    afterStart: int = 0
    after: list[str] = []
    beforeSnapshot: str  # the step's start snapshot
    afterSnapshot: str  # the step's end snapshot: the agent's version
    told: bool = True  # False: undone, and the model has not been told yet
    time: int = 0
    # A sub-agent's hunk (its session started by ``task``, in the foreground or background): who
    # made it. None: the session's own agent. A session's review lists its sub-agents' hunks too.
    agent: HunkAgent | None = None

    def by(self) -> str:
        """`` by @general: fix the parser`` for a sub-agent's hunk, else empty: what labels show."""
        if self.agent is None:
            return ""
        return f" by @{self.agent.name}: {self.agent.description}"

    def lines_label(self) -> str:
        """``lines 10-14`` (1-based, of the agent's version), or the whole-file kind."""
        if self.kind != "text":
            return {"created": "the new file", "deleted": "its deletion", "binary": "the file"}[self.kind]
        first = self.afterStart + 1
        if not self.after:
            return f"the lines removed at line {first}"
        last = first + len(self.after) - 1
        return f"line {first}" if first == last else f"lines {first}-{last}"


class HunkConflict(_Model):
    """An undo that was not done: the user's edits overlap the agent's lines."""

    hunkID: str
    file: str
    reason: str
    agent: list[str]  # the agent's lines
    current: list[str]  # what stands in their place now


class ReviewResult(_Model):
    """What keep or undo did: the hunks whose state changed, and the undos that conflicted."""

    changed: list[Hunk] = []
    conflicts: list[HunkConflict] = []


class ReviewComment(_Model):
    """A user's review comment on lines of a file (1-based, inclusive), maybe on one of the agent's
    hunks; a batch of them goes to the agent as one prompt (``Agent.review_comment``)."""

    path: str  # relative to the worktree, or absolute inside it
    startLine: int
    endLine: int
    body: str
    hunkID: str | None = None
