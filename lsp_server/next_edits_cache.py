"""The small model's edits waiting at their sites, per document and line, and what an editor gets
from one: an inline completion item or a code action.

An edit is kept with the line it rewrites as it was when the model was asked. When the document has
changed since (another version), the edit is still offered if that line reads the same, and dropped
when it does not: it no longer applies (the user typed there, or the line moved).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

ACTION_TITLE = "Apply the agent's pattern here"
# Run by the client once it applied a suggestion of the agent's pattern: the server records the
# edit as a review hunk of that session (``lsp_server.next_edits``).
APPLIED = "agentls.nextEditApplied"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The model's rewrite of one line: ``original`` at ``line`` of ``uri``'s ``version``."""

    uri: str
    version: int | None
    line: int
    original: str
    new: str
    pattern: str  # what the action's title says the pattern is
    session: str | None = None  # the session whose hunk started the pattern (None: the user's edit)


class SuggestionCache:
    """Suggestions by document and line; at most one per line (the latest)."""

    def __init__(self) -> None:
        self._by_uri: dict[str, dict[int, Suggestion]] = {}

    def put(self, suggestion: Suggestion) -> None:
        """Keep ``suggestion`` (replacing one at the same line)."""
        self._by_uri.setdefault(suggestion.uri, {})[suggestion.line] = suggestion

    def has(self, uri: str, line: int, text: str) -> bool:
        """Whether a suggestion for ``text`` at ``line`` of ``uri`` is kept (asked already)."""
        found = self._by_uri.get(uri, {}).get(line)
        return found is not None and found.original == text

    def clear(self) -> None:
        """Forget every suggestion (a new pattern started)."""
        self._by_uri.clear()

    def forget(self, uri: str) -> None:
        """Forget the suggestions of a closed document."""
        self._by_uri.pop(uri, None)

    def at(self, document: TextDocument, line: int) -> Suggestion | None:
        """The suggestion for ``line`` of ``document`` if it still applies to the text there."""
        found = self._by_uri.get(document.uri, {}).get(line)
        if found is None:
            return None
        if found.version == document.version:
            return found
        lines = document.lines
        current = lines[line].rstrip("\r\n") if line < len(lines) else None
        if current != found.original:  # stale: the line changed since the model was asked
            self._by_uri[document.uri].pop(line, None)
            return None
        return found

    def __len__(self) -> int:
        return sum(len(lines) for lines in self._by_uri.values())


def _line_range(document: TextDocument, suggestion: Suggestion) -> lsp.Range:
    units = document.position_codec.client_num_units(suggestion.original)
    return lsp.Range(
        start=lsp.Position(line=suggestion.line, character=0),
        end=lsp.Position(line=suggestion.line, character=units),
    )


def inline_item(document: TextDocument, suggestion: Suggestion) -> lsp.InlineCompletionItem:
    """The suggestion as an inline completion replacing only what changes in its line (the text
    both versions share at the start and the end stays out of the range): an editor can then show
    an insertion as ghost text and a replacement at its place (VS Code's inline edit)."""
    old, new = suggestion.original, suggestion.new
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    codec = document.position_codec
    start = codec.client_num_units(old[:head])
    end = codec.client_num_units(old[: len(old) - tail])
    where = lsp.Range(
        start=lsp.Position(line=suggestion.line, character=start),
        end=lsp.Position(line=suggestion.line, character=end),
    )
    return lsp.InlineCompletionItem(
        insert_text=new[head : len(new) - tail], range=where, command=applied(document, suggestion)
    )


def applied(document: TextDocument, suggestion: Suggestion) -> lsp.Command | None:
    """The command that tells the server a suggestion of the agent's pattern was applied (None for
    a pattern of the user's own edit: that edit is the user's, not a review hunk)."""
    if suggestion.session is None:
        return None
    argument = {
        "uri": document.uri,
        "line": suggestion.line,
        "original": suggestion.original,
        "new": suggestion.new,
        "sessionID": suggestion.session,
    }
    return lsp.Command(title="Record the agent's pattern applied", command=APPLIED, arguments=[argument])


def code_action(document: TextDocument, suggestion: Suggestion) -> lsp.CodeAction:
    """The suggestion as a code action whose edit the client applies (one undo step), then runs
    its command (``applied``) so that the edit joins the agent's review.

    ``changes``, not ``documentChanges``: stock Neovim 0.11 announces no ``documentChanges``.
    """
    edit = lsp.TextEdit(range=_line_range(document, suggestion), new_text=suggestion.new)
    return lsp.CodeAction(
        title=f"{ACTION_TITLE} ({suggestion.pattern})",
        kind=lsp.CodeActionKind.QuickFix,
        edit=lsp.WorkspaceEdit(changes={document.uri: [edit]}),
        command=applied(document, suggestion),
    )
