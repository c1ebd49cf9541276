"""The review of a session: hunks recorded after each step, listed, kept and undone.

Undo writes through the Workspace (an open editor buffer gets the change as an edit) and never
overwrites what the user wrote: each hunk is merged three ways (see ``merge``) and one that
overlaps the user's edits comes back as a conflict, its file untouched.

A session's review includes its sub-agents' hunks (sessions started by ``task``, foreground or
background, nested too), each stored once, in the sub-agent's session, and marked with who made it
(``Hunk.agent``). Keep and undo from any session that shows a hunk act on that one hunk, and each
change is announced (``review.updated``) to the hunk's session and every session above it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from core import ids
from core.bus import Bus
from core.errors import AgentError, InvalidInputError, NotFoundError
from core.events import ReviewUpdated
from core.message.models import MessageWithParts, Session, UserMessage
from core.message.review import Hunk, HunkAgent, HunkConflict, ReviewResult
from core.prompts import load
from core.review.authorship import StepWrites, WriteLog, agent_only
from core.review.merge import Conflict, LineHunk, split_lines, undo_hunk, undo_hunks, undo_in_place
from core.review.record import as_text, step_hunks
from core.snapshot.backend import Content, Snapshots
from core.snapshot.history import SessionAccess, StepPatch, before_point, find_point, step_patches
from core.storage.messages import PartFilter
from core.storage.review import ReviewTable
from core.workspace import EditContext, Workspace

log = logging.getLogger(__name__)

_STEP_PARTS = ("step-start", "step-finish", "patch")
_VERSIONS_KEPT = 16  # agent versions of files kept for undo (each at most snapshot.max_file_bytes)
_SUBTASK_TITLE = re.compile(r"^(?P<description>.*) \(@(?P<name>[^)]+)\)$")  # core.session.subtask's titles

Children = Callable[[str], Awaitable[list[Session]]]


class ReviewService:
    """Hunks of the agent's changes per session (see the module docstring)."""

    def __init__(
        self,
        table: ReviewTable,
        sessions: SessionAccess,
        snapshots: Snapshots,
        workspace: Workspace,
        bus: Bus,
        worktree: Path,
        writes: WriteLog | None = None,
        children: Children | None = None,
    ) -> None:
        self._table = table
        self._children = children  # the sessions a session started (None: reviews stand alone)
        self._writes = writes
        self._sessions = sessions
        self._snapshots = snapshots
        self._workspace = workspace
        self._bus = bus
        self._worktree = worktree
        self._versions: dict[tuple[str, str], bytes | None] = {}

    async def record(self, session_id: str) -> list[Hunk]:
        """Store the hunks of every step patch not recorded yet; publish ``review.updated``."""
        messages = await self._sessions.messages(session_id, PartFilter(_STEP_PARTS))
        done = await self._table.reviewed_steps(session_id)
        patches = [p for p in step_patches(messages) if p.part_id not in done and p.after is not None]
        if not patches:
            return []
        wanted = [(side, f) for p in patches for f in p.files for side in (p.hash, p.after or p.hash)]
        contents = await self._snapshots.contents(wanted)
        logged = self._writes
        steps = [
            logged.writes(p.hash, p.after, session_id) if logged is not None and p.after else None
            for p in patches
        ]
        # Diffing every file of every step (and replaying the agent's writes over it) is CPU work of
        # up to ~100 ms for a long file: on a thread, so the server keeps answering the editor.
        hunks = await asyncio.to_thread(_patch_hunks, session_id, patches, steps, contents)
        hunks = await self._attributed(session_id, messages, hunks)
        await self._table.add_hunks(hunks)
        # Steps without hunks too: later the write log no longer knows them, and their whole change
        # would look like the agent's.
        await self._table.examined([(session_id, p.message_id, p.part_id) for p in patches])
        if self._writes is not None:
            for patch in patches:
                self._writes.forget(patch.hash, patch.after, session_id)
        await self._publish(hunks)
        return hunks

    async def _attributed(
        self, session_id: str, messages: list[MessageWithParts], hunks: list[Hunk]
    ) -> list[Hunk]:
        """``hunks`` marked with the sub-agent whose session made them (unchanged for a top session)."""
        if not hunks:
            return hunks
        session = await self._sessions.get(session_id)
        if session.parentID is None:
            return hunks
        found = _SUBTASK_TITLE.match(session.title)
        users = [m.info.agent for m in messages if isinstance(m.info, UserMessage)]
        name = found["name"] if found else (users[0] if users else "subagent")
        description = found["description"] if found else session.title
        agent = HunkAgent(sessionID=session_id, name=name, description=description)
        return [h.model_copy(update={"agent": agent}) for h in hunks]

    async def record_edit(self, session_id: str, path: str, before: bytes, after: bytes) -> list[Hunk]:
        """Store an edit made in the editor on the session's behalf, outside any step (the agent's
        pattern applied at another site: ``core.next_edits``), as pending hunks of the session's
        last message; publish ``review.updated``. ``path`` is worktree-relative; ``before`` and
        ``after`` are the whole file around the edit, which only changes lines of a text file."""
        await self._sessions.get(session_id)  # NotFoundError for an unknown session
        messages = await self._sessions.messages(session_id, PartFilter(()))
        if not messages:
            raise InvalidInputError(f"session {session_id} has no turn whose review the edit could join")
        if as_text(before) is None or as_text(after) is None:
            raise InvalidInputError(f"{path} is not text: only edits of lines are recorded")
        # No snapshot holds the file after an editor's edit: its hunks say so with empty snapshot
        # ids, and are undone by finding their lines (``undo_in_place``).
        hunks = step_hunks(
            session_id=session_id,
            message_id=messages[-1].info.id,
            step_id=ids.ascending("prt"),
            path=path,
            before_snapshot="",
            after_snapshot="",
            before=before,
            after=after,
        )
        hunks = await self._attributed(session_id, messages, hunks)
        await self._table.add_hunks(hunks)
        await self._publish(hunks)
        return hunks

    async def pending(self, session_id: str) -> list[Hunk]:
        """The hunks still to review, its sub-agents' too, oldest first (a reverted turn's hunks
        are not)."""
        return await self._live(session_id, "pending")

    async def hunks(self, session_id: str) -> list[Hunk]:
        """Every hunk of the session and its sub-agents in any state, oldest first (a reverted
        turn's are not)."""
        return await self._live(session_id, None)

    async def _live(self, session_id: str, state: str | None) -> list[Hunk]:
        session = await self._sessions.get(session_id)
        hunks = await self._own(session, state)
        # A sub-agent's hunks made after a revert point of a session above it went with that turn.
        cutoff: dict[str, int | None] = {session_id: await self._reverted_at(session)}
        for child in await self._descendants(session_id):
            parent = child.parentID or session_id
            cutoff[child.id] = _earliest(cutoff.get(parent), await self._reverted_at(child))
            inherited = cutoff.get(parent)
            hunks += [h for h in await self._own(child, state) if inherited is None or h.time < inherited]
        return sorted(hunks, key=lambda h: h.id)  # ids ascend with time, across sessions

    async def _reverted_at(self, session: Session) -> int | None:
        """When the session's reverted turn began (ms), for hiding its sub-agents' later hunks; None
        when nothing is reverted, or the revert is to a part within a message (the sub-agents of
        that message's earlier parts stay: their hunks are kept listed)."""
        if session.revert is None or session.revert.partID is not None:
            return None
        messages = await self._sessions.messages(session.id, PartFilter(()))
        found = [m for m in messages if m.info.id == session.revert.messageID]
        return found[0].info.time.created if found else None

    async def _descendants(self, session_id: str) -> list[Session]:
        """The sessions ``session_id`` started, theirs, and so on."""
        if self._children is None:
            return []
        found: list[Session] = []
        queue = [session_id]
        while queue:
            for child in await self._children(queue.pop()):
                if all(s.id != child.id for s in found):  # a cycle cannot loop (none are made)
                    found.append(child)
                    queue.append(child.id)
        return found

    async def _ancestors(self, session_id: str) -> list[str]:
        """``session_id`` and the sessions above it, nearest first."""
        chain = [session_id]
        while True:
            try:
                parent = (await self._sessions.get(chain[-1])).parentID
            except NotFoundError:  # deleted meanwhile: nobody above to tell
                return chain
            if parent is None or parent in chain:
                return chain
            chain.append(parent)

    async def _own(self, session: Session, state: str | None) -> list[Hunk]:
        """The session's own hunks (not its sub-agents'), a reverted turn's left out."""
        session_id = session.id
        hunks = await self._table.hunks(session_id, state)
        if session.revert is None:
            return hunks
        messages = await self._sessions.messages(session_id, PartFilter(()))
        try:
            point = find_point(messages, session.revert.messageID, None)
        except NotFoundError:
            return hunks
        live = {m.info.id for m in before_point(messages, point)}
        return [h for h in hunks if h.messageID in live]

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Mark hunks kept (by id, by file, or all pending ones): the files are not touched."""
        chosen, _pending = await self._choose(session_id, hunk_ids, file)
        kept = [h.model_copy(update={"state": "kept"}) for h in chosen]
        await self._table.update_hunks(kept)
        await self._publish(kept, session_id)
        return ReviewResult(changed=kept)

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Undo hunks (by id, by file, or all pending ones), newest first; a hunk whose lines the
        user changed since is reported as a conflict and its file left as it is."""
        chosen, _pending = await self._choose(session_id, hunk_ids, file)
        live = await self._live(session_id, None)
        by_file: dict[str, list[Hunk]] = {}
        for hunk in sorted(chosen, key=lambda h: h.id, reverse=True):  # later steps sit on earlier
            by_file.setdefault(hunk.file, []).append(hunk)
        result = ReviewResult()
        for path, hunks in by_file.items():
            undone, conflicts = await self._undo_file(session_id, path, hunks)
            conflicts = _blame_later_steps(conflicts, [h for h in live if h.file == path])
            await self._table.update_hunks(undone)  # file by file: a later failure keeps these
            result.changed += undone
            result.conflicts += conflicts
        await self._publish(result.changed, session_id)
        return result

    async def _choose(
        self, session_id: str, hunk_ids: Sequence[str] | None, file: str | None
    ) -> tuple[list[Hunk], int]:
        """The pending hunks chosen, and how many hunks are pending in all."""
        if hunk_ids is not None and file is not None:
            raise InvalidInputError("choose hunks by id or by file, not both")
        live = await self._live(session_id, None)
        pending = [h for h in live if h.state == "pending"]
        if hunk_ids is not None:
            found = {h.id: h for h in live}
            missing = [i for i in hunk_ids if i not in found]
            if missing:
                raise NotFoundError(f"no hunk {', '.join(missing)} in session {session_id}")
            return [found[i] for i in dict.fromkeys(hunk_ids) if found[i].state == "pending"], len(pending)
        if file is not None:
            return [h for h in pending if h.file == file], len(pending)
        return pending, len(pending)

    async def _undo_file(
        self, session_id: str, path: str, hunks: list[Hunk]
    ) -> tuple[list[Hunk], list[HunkConflict]]:
        target = self._worktree / path
        now = original = await self._read(target)
        undone: list[Hunk] = []
        conflicts: list[HunkConflict] = []
        for group in _steps(hunks):
            if len(group) > 1:  # text hunks of one step: one pass over the file for all of them
                now, done, failed = await self._undo_text(group, now)
                undone += done
                conflicts += failed
                continue
            hunk = group[0]
            try:
                merged: bytes | HunkConflict | None
                if not hunk.afterSnapshot:  # an edit made in the editor (``record_edit``)
                    merged = self._undo_edit(hunk, now)
                else:
                    merged = await self._merge(hunk, now, await self._agent_version(hunk))
            except NotFoundError as exc:  # the step's snapshot was garbage-collected
                merged = _conflict(hunk, f"the agent's version is no longer stored: {exc}")
            if isinstance(merged, HunkConflict):
                conflicts.append(merged)
                continue
            now = merged
            undone.append(hunk.model_copy(update={"state": "undone", "told": False}))
        if undone and now != original:
            ctx = EditContext(label="Undo agent change", session_id=session_id)
            try:
                if now is None:
                    await self._workspace.delete(target, ctx)
                else:
                    await self._workspace.write_bytes(target, now, ctx)
            except (AgentError, OSError) as exc:  # the editor refused, the disk said no: not undone
                log.warning("undo of %s in session %s not written: %s", path, session_id, exc)
                return [], conflicts + [_conflict(h, f"the file could not be written: {exc}") for h in undone]
        return undone, conflicts

    async def _undo_text(
        self, group: list[Hunk], now: bytes | None
    ) -> tuple[bytes | None, list[Hunk], list[HunkConflict]]:
        """Undo text hunks of one step (one agent version) together: the file, the hunks undone,
        the conflicts (each as ``_merge`` would report it; a conflicting hunk changes nothing)."""
        try:
            agent = await self._agent_version(group[0])
        except NotFoundError as exc:  # the step's snapshot was garbage-collected
            return now, [], [_conflict(h, f"the agent's version is no longer stored: {exc}") for h in group]
        if now is None or agent is None or as_text(now) is None:
            failed = [await self._merge(h, now, agent) for h in group]  # each says why
            return now, [], [f for f in failed if isinstance(f, HunkConflict)]
        line_hunks = [
            LineHunk(
                h.beforeStart,
                tuple(line.encode() for line in h.before),
                h.afterStart,
                tuple(line.encode() for line in h.after),
            )
            for h in group
        ]
        lines, clashes = undo_hunks(split_lines(now), split_lines(agent), line_hunks)
        conflicts = [
            _conflict(h, clashes[i].reason, [line.decode("utf-8", "replace") for line in clashes[i].current])
            for i, h in enumerate(group)
            if i in clashes
        ]
        done = [
            h.model_copy(update={"state": "undone", "told": False})
            for i, h in enumerate(group)
            if i not in clashes
        ]
        return (b"".join(lines) if done else now), done, conflicts

    async def _agent_version(self, hunk: Hunk) -> bytes | None:
        """The file as the hunk's step left it; snapshots never change, so the last few are kept
        (undoing the hunks of one file one by one reads the same version each time)."""
        key = (hunk.afterSnapshot, hunk.file)
        if key in self._versions:
            self._versions[key] = self._versions.pop(key)  # most recently used last
        else:
            self._versions[key] = await self._snapshots.file_at(*key)
            while len(self._versions) > _VERSIONS_KEPT:
                del self._versions[next(iter(self._versions))]
        return self._versions[key]

    async def _read(self, target: Path) -> bytes | None:
        try:
            return await self._workspace.read_bytes(target)
        except FileNotFoundError:
            return None

    def _undo_edit(self, hunk: Hunk, now: bytes | None) -> bytes | HunkConflict:
        if now is None or as_text(now) is None:
            return _conflict(hunk, "the file is gone or no longer text since the edit")
        line_hunk = LineHunk(
            hunk.beforeStart,
            tuple(line.encode() for line in hunk.before),
            hunk.afterStart,
            tuple(line.encode() for line in hunk.after),
        )
        merged = undo_in_place(split_lines(now), line_hunk)
        if isinstance(merged, Conflict):
            current = [line.decode("utf-8", "replace") for line in merged.current]
            return _conflict(hunk, merged.reason, current)
        return b"".join(merged)

    async def _merge(self, hunk: Hunk, now: bytes | None, agent: bytes | None) -> bytes | HunkConflict | None:
        """The file's content with ``hunk`` undone, or the conflict."""

        def conflict(reason: str, current: Sequence[str] = ()) -> HunkConflict:
            return _conflict(hunk, reason, current)

        if hunk.kind == "created":
            if now is None:
                return None
            return None if now == agent else conflict("you edited the file the agent created")
        if hunk.kind == "deleted":
            if now is not None:
                return conflict("the file the agent deleted exists again")
            return await self._snapshots.file_at(hunk.beforeSnapshot, hunk.file)
        if now is None:
            return conflict("the file is gone (renamed or deleted since the agent changed it)")
        if hunk.kind == "binary":
            if now != agent:
                return conflict("the file changed since the agent wrote it")
            return await self._snapshots.file_at(hunk.beforeSnapshot, hunk.file)
        if agent is None or as_text(now) is None:
            return conflict("the file is no longer text the agent's lines can be found in")
        line_hunk = LineHunk(
            hunk.beforeStart,
            tuple(line.encode() for line in hunk.before),
            hunk.afterStart,
            tuple(line.encode() for line in hunk.after),
        )
        merged = undo_hunk(split_lines(now), split_lines(agent), line_hunk)
        if isinstance(merged, Conflict):
            current = [line.decode("utf-8", "replace") for line in merged.current]
            return conflict(merged.reason, current)
        return b"".join(merged)

    async def tell(self, session_id: str, deliver: Callable[[str], Awaitable[bool]]) -> str | None:
        """Hand ``deliver`` a note of what the user undid that the model has not been told yet;
        the hunks count as told once it returns True (a failed delivery is tried next time).
        Returns the note, or None when there was nothing to tell."""
        hunks = [h for h in await self._table.hunks(session_id, "undone") if not h.told]
        if not hunks:
            return None
        items = "\n".join(_undone_item(h) for h in hunks)
        note = load("review/undone.md").replace("{items}", items)
        if await deliver(note):
            await self._table.update_hunks([h.model_copy(update={"told": True}) for h in hunks])
        return note

    async def _publish(self, changed: list[Hunk], viewed: str | None = None) -> None:
        """Announce ``changed`` to every session whose review shows them (each hunk's session and
        those above it), and to ``viewed``, the session keep or undo was asked in, with how many
        hunks each still has pending."""
        if not changed:
            return
        sessions: dict[str, None] = dict.fromkeys([viewed] if viewed is not None else [])
        for owner in dict.fromkeys(h.sessionID for h in changed):
            sessions.update(dict.fromkeys(await self._ancestors(owner)))
        for session_id in sessions:
            try:
                pending = len(await self.pending(session_id))
            except NotFoundError:  # deleted meanwhile
                continue
            self._bus.publish(ReviewUpdated(sessionID=session_id, changed=changed, pending=pending))


_SHOWN_LINES = 4  # of each side of an undone hunk, in the note to the model
_SHOWN_CHARS = 160


def _undone_item(hunk: Hunk) -> str:
    """One undone hunk for the model: where, and what it wrote against what is there again (the
    line number alone is stale once the file moves, and says nothing of the change)."""
    head = f"- {hunk.file}, {hunk.lines_label()}"
    if hunk.kind != "text":
        return head

    def quoted(lines: Sequence[str]) -> str:
        shown = [line.rstrip("\r\n")[:_SHOWN_CHARS] for line in lines[:_SHOWN_LINES]]
        more = len(lines) - len(shown)
        tail = [f"    … {more} more lines"] if more else []
        return "\n".join([*(f"    {line}" for line in shown), *tail])

    if not hunk.before:
        return f"{head}: the lines you added are gone:\n{quoted(hunk.after)}"
    if not hunk.after:
        return f"{head}: the lines you removed are back:\n{quoted(hunk.before)}"
    return f"{head}: you wrote\n{quoted(hunk.after)}\n  and it is back to\n{quoted(hunk.before)}"


def _steps(hunks: list[Hunk]) -> list[list[Hunk]]:
    """``hunks`` (newest first) in runs to undo together: the text hunks of one step make one run
    (they share the agent's version); any other hunk is a run of its own."""
    runs: list[list[Hunk]] = []
    for hunk in hunks:
        last = runs[-1] if runs else None
        if (
            last is not None
            and hunk.kind == "text"
            and last[-1].kind == "text"
            and hunk.afterSnapshot  # an edit made in the editor stands alone
            and last[-1].afterSnapshot == hunk.afterSnapshot
        ):
            last.append(hunk)
        else:
            runs.append([hunk])
    return runs


def _blame_later_steps(conflicts: list[HunkConflict], hunks: Sequence[Hunk]) -> list[HunkConflict]:
    """``conflicts`` whose lines a later step of the agent changed (a later hunk of the file, not
    undone, replaced lines this hunk wrote) say so: the merge sees only that the lines differ, and
    told the user they had changed them."""
    by_id = {h.id: h for h in hunks}
    out: list[HunkConflict] = []
    for conflict in conflicts:
        hunk = by_id.get(conflict.hunkID)
        wrote = {line for line in hunk.after if line.strip()} if hunk is not None else set()
        later = [
            h
            for h in hunks
            if hunk is not None and h.id > hunk.id and h.state != "undone" and wrote & set(h.before)
        ]
        if later:
            step = later[0]
            reason = (
                f"the agent changed these lines again in a later step ({step.lines_label()}, "
                f"{step.state}); undo that change first"
            )
            conflict = conflict.model_copy(update={"reason": reason})
        out.append(conflict)
    return out


def _earliest(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _conflict(hunk: Hunk, reason: str, current: Sequence[str] = ()) -> HunkConflict:
    return HunkConflict(
        hunkID=hunk.id, file=hunk.file, reason=reason, agent=hunk.after, current=list(current)
    )


def _patch_hunks(
    session_id: str,
    patches: Sequence[StepPatch],
    steps: Sequence[StepWrites | None],
    contents: Mapping[tuple[str, str], Content],
) -> list[Hunk]:
    """The hunks of ``patches``: per file, the agent's own lines (``steps``: its writes in each step,
    None when not logged) between the step's snapshots."""
    hunks: list[Hunk] = []
    for patch, step in zip(patches, steps, strict=True):
        assert patch.after is not None
        for path in patch.files:
            before, after = contents[patch.hash, path], contents[patch.after, path]
            if isinstance(before, NotFoundError) or isinstance(after, NotFoundError):
                log.warning("review of %s in session %s: %s", path, session_id, before or after)
                continue
            if step is not None and path in step.by_file:  # the agent's lines, not the user's
                before = agent_only(before, after, step.by_file[path])
            elif step is not None and not step.opaque:  # only the user changed it
                continue
            hunks += step_hunks(
                session_id=session_id,
                message_id=patch.message_id,
                step_id=patch.part_id,
                path=path,
                before_snapshot=patch.hash,
                after_snapshot=patch.after,
                before=before,
                after=after,
            )
    return hunks
