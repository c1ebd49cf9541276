"""``/review [target]``: the agent reviews a diff and answers with findings, which are parsed so
that editors can show them as diagnostics (``lsp_server/review_findings.py``).

The agent's own pending changes, which ``/review`` listed before, are ``/changes`` now; for one
release ``/review``'s answer says so.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from core.api import CommandResult, PromptParts
from core.commands.findings import parse_findings, says_no_findings
from core.commands.review_target import ReviewTarget, git, resolve_target
from core.message.models import MessageWithParts, TextPart
from core.message.prompt_input import TextInput
from core.prompts import load

log = logging.getLogger(__name__)

MAX_DIFF_CHARS = 80_000  # what of a diff goes into the prompt; the model can read the rest with git
RENAMED_NOTE = (
    "(/review now asks the agent to review code; the agent's own changes waiting for review are "
    "listed by /changes.)"
)


class ReviewHost(Protocol):
    """What a review needs of the agent."""

    @property
    def directory(self) -> Path: ...

    async def prompt(
        self,
        session_id: str,
        parts: PromptParts,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
    ) -> MessageWithParts: ...


async def run_review(
    host: ReviewHost, session_id: str, arguments: str, agent: str | None, model: str | None
) -> CommandResult:
    """Resolve the target, ask the agent to review it, and read the findings from its answer."""
    target = await resolve_target(host.directory, arguments)
    if not target.diff.strip() and not target.untracked:
        note = f"Nothing to review: {target.label} has no changes"
        note += f" (left out as secrets: {', '.join(target.secret)})." if target.secret else "."
        return CommandResult("review", text=f"{note}\n{RENAMED_NOTE}", findings=())
    answer = await host.prompt(session_id, [TextInput(text=review_prompt(target))], agent=agent, model=model)
    text = "\n".join(p.text for p in answer.parts if isinstance(p, TextPart) and not p.synthetic)
    root = Path((await git(host.directory, "rev-parse", "--show-toplevel")).strip())
    findings = parse_findings(text, root)
    if not findings and not says_no_findings(text):
        log.info("review in %s: the answer lists no finding in the asked form", session_id)
    return CommandResult("review", message=answer, text=RENAMED_NOTE, findings=tuple(findings))


def review_prompt(target: ReviewTarget) -> str:
    """The review request for ``target``: the instructions, the diff (cut when very long), and the
    files it does not show."""
    diff = target.diff
    if len(diff) > MAX_DIFF_CHARS:
        rest = len(diff) - MAX_DIFF_CHARS
        cut = f"[… the diff is cut here, {rest} more characters: run `{target.command}`]"
        diff = f"{diff[:MAX_DIFF_CHARS]}\n{cut}"
    extra = []
    if target.untracked:
        extra.append("New files not yet added to git (read them too): " + ", ".join(target.untracked))
    if target.secret:
        extra.append(
            "Left out of the diff because they hold secrets (do not read or print their values): "
            + ", ".join(target.secret)
        )
    body = f"```diff\n{diff.rstrip()}\n```" if diff.strip() else "(no changes to tracked files)"
    text = load("commands/review.md")
    text = text.replace("{target}", target.label).replace("{command}", target.command)
    text = text.replace("{extra}", "\n".join(extra))
    return text.replace("{diff}", body).rstrip() + "\n"  # the diff last: its text is never a placeholder
