"""Who may write a file while background sub-agents run beside their parent (issue 40).

The rule, the simplest that is safe without worktrees: while a background sub-agent runs, a file
belongs to the first of its *team* that writes it — the parent's tree of sessions (the root session
and its foreground sub-agents) counts as one writer, each background sub-agent (with its own
foreground sub-agents) as another. A write by another writer of the same team is refused with a
reason the model can act on, until the owner ends; then its files are free again. Files written
before the first background sub-agent started are not claimed, and commands run by ``bash`` are not
seen: the rule covers the edit tools (``edit``, ``write``, ``apply_patch`` and the editor's
refactors), which are how the agent changes files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from core.errors import ToolError
from core.workspace import EditContext, ForwardingWorkspace, Workspace


class Team:
    """What the claims need to know of the sessions: the writer a session writes for, and whether
    a writer is running now (the root of a tree runs while one of its background sub-agents does)."""

    def __init__(
        self,
        writer_of: Callable[[str], tuple[str, str]],
        running_in: Callable[[str], list[str]],
        describe: Callable[[str], str],
    ) -> None:
        self.writer_of = writer_of  # session → (root of its tree, the writer it writes for)
        self.running_in = running_in  # root → the background sub-agents of its tree running now
        self.describe = describe  # a writer, as the refusal names it


class FileClaims:
    """The files each writer of a team wrote while background sub-agents ran."""

    def __init__(self, team: Team) -> None:
        self._team = team
        self._owners: dict[tuple[str, Path], str] = {}

    def check(self, session_id: str, path: Path) -> None:
        """Claim ``path`` for ``session_id``'s writer, or raise ToolError when another one holds it."""
        self.check_all(session_id, [path])

    def check_all(self, session_id: str, paths: Sequence[Path]) -> None:
        """Claim every one of ``paths``, or none (ToolError names the first another writer holds):
        a change of several files (``apply_patch``) is refused before it writes any."""
        root, writer = self._team.writer_of(session_id)
        running = self._team.running_in(root)
        if not running:
            self.release_tree(root)
            return
        for path in paths:
            owner = self._owners.get((root, path))
            if owner is not None and owner != writer and (owner == root or owner in running):
                raise ToolError(self._refusal(path, owner, writer, root))
        for path in paths:
            self._owners[(root, path)] = writer

    def release(self, writer: str) -> None:
        """The files ``writer`` (a background sub-agent that ended) held are free again."""
        for key in [k for k, owner in self._owners.items() if owner == writer]:
            del self._owners[key]

    def release_tree(self, root: str) -> None:
        for key in [k for k in self._owners if k[0] == root]:
            del self._owners[key]

    def guard(self, inner: Workspace) -> Workspace:
        """``inner`` with every write and delete checked against the claims first."""
        return _ClaimedWorkspace(inner, self)

    def _refusal(self, path: Path, owner: str, writer: str, root: str) -> str:
        if writer == root:
            return (
                f"{path} is being changed by {self._team.describe(owner)}, which runs in the "
                "background: leave this file to it until its result arrives, then edit it"
            )
        if owner == root:
            return (
                f"{path} was changed by the session that started you while you run in the background: "
                "do not edit it; describe the change you would make in your final report instead"
            )
        return (
            f"{path} is being changed by {self._team.describe(owner)}, another background sub-agent: "
            "do not edit it; describe the change you would make in your final report instead"
        )


class _ClaimedWorkspace(ForwardingWorkspace):
    def __init__(self, inner: Workspace, claims: FileClaims) -> None:
        super().__init__(inner)
        self._claims = claims

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        if ctx.session_id is not None:
            self._claims.check(ctx.session_id, path)
        await self.inner.write_bytes(path, data, ctx)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        if ctx.session_id is not None:
            self._claims.check(ctx.session_id, path)
        await self.inner.delete(path, ctx)
