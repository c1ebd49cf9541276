"""Asking whether to trust a project, the same way for every front end.

Before a front end opens the agent of a project, it calls ``question_for``: None means nothing is
to be asked (the project brings nothing of its own, the user trusted it before, or the editor
already said it is untrusted); otherwise it asks the user the question in its own way (a terminal
prompt, an ACP permission request, ``window/showMessageRequest``) and hands the answer to
``answer``. Until trusted, the project's own files are ignored (``core.trust``): the agent opens
with the user's config only. Only "trust" is remembered (``store``); "Not now" asks again next time.
"""

from __future__ import annotations

from pathlib import Path

from core.config.paths import data_dir as default_data_dir
from core.config.paths import worktree_of
from core.project_trust import items, store
from core.project_trust.store import TrustStoreError
from core.record import record
from core.trust import distrust
from core.trust import is_trusted as trusted_in_process

TRUST, NOT_NOW = "Trust this project", "Not now"

__all__ = ["NOT_NOW", "TRUST", "TrustQuestion", "TrustStoreError", "answer", "question_for"]


@record
class TrustQuestion:
    """A project that brings files of its own, not trusted yet: what to ask the user about."""

    worktree: Path
    items: list[str]  # relative to the worktree
    data_dir: Path

    def text(self, sep: str = " ") -> str:
        """The question, as every front end shows it (``sep`` between its sentences: a dialog that
        does not wrap lines takes a newline)."""
        return sep.join(
            [
                f"Trust the project {_home(self.worktree)}?",
                f"It has its own {', '.join(self.items)}.",
                "Trusted, agentls uses them: their MCP servers, commands and skills can run programs,",
                "and their rules can allow more. Not trusted, only your own config is used.",
            ]
        )

    def untrusted_note(self) -> str:
        """What a front end that cannot ask says instead (once), with the command that trusts it."""
        return (
            f"agentls: the project {_home(self.worktree)} is not trusted, so its own "
            f"{', '.join(self.items)} are ignored. To trust it: agentls trust add {_quoted(self.worktree)}"
        )


def question_for(directory: Path, data_dir: Path | None = None) -> TrustQuestion | None:
    """What to ask before the agent of ``directory`` opens, or None when there is nothing to ask."""
    directory = store.canonical(directory)
    worktree = worktree_of(directory)
    if not trusted_in_process(directory) or not trusted_in_process(worktree):
        return None  # the editor said so (initializationOptions.untrusted): already decided
    found = items.found(directory, worktree)
    base = data_dir or default_data_dir()
    if not found or store.is_trusted(base, worktree):
        return None
    return TrustQuestion(worktree=worktree, items=found, data_dir=base)


def answer(question: TrustQuestion, trusted: bool) -> str | None:
    """Act on the user's answer: remember a trust, or ignore the project's files in this process.

    Returns a warning for the user when the trust could not be remembered (it still holds for now).
    """
    if not trusted:
        distrust(question.worktree)
        return None
    try:
        store.add(question.data_dir, question.worktree)
    except (TrustStoreError, OSError) as exc:
        return f"{question.worktree} is trusted for now, but the trust could not be remembered: {exc}"
    return None


def _home(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)


def _quoted(path: Path) -> str:
    import shlex  # here: only a front end that cannot ask needs it

    return shlex.quote(str(path))
