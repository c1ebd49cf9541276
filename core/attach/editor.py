"""Formatting the context items whose content the editor gathered (the client sends it raw)."""

from __future__ import annotations

from pathlib import Path

from core.message.context_items import EditorItem, ProblemsItem, SymbolItem, TerminalItem
from core.prompts import load

MAX_PROBLEMS = 200
MAX_TERMINAL_LINES = 400
MAX_SYMBOL_LINES = 400
MAX_SELECTION_LINES = 40  # the editor note stays short: a longer selection is cut
_SEVERITY_ORDER = {"error": 0, "warning": 1, "information": 2, "hint": 3}


def shown_path(path: str, worktree: Path) -> str:
    """A path relative to the project when it is inside, else as given."""
    try:
        return str(Path(path).resolve().relative_to(worktree))
    except (ValueError, OSError):
        return path


def problems_label(item: ProblemsItem, worktree: Path) -> str:
    return f"problems: {shown_path(item.path, worktree)}" if item.path else "problems"


def problems_text(item: ProblemsItem, worktree: Path) -> str:
    ranked = sorted(item.problems, key=lambda p: (_SEVERITY_ORDER[p.severity], p.path, p.line))
    lines = []
    for problem in ranked[:MAX_PROBLEMS]:
        source = f" [{problem.source}]" if problem.source else ""
        where = f"{shown_path(problem.path, worktree)}:{problem.line + 1}:{problem.column + 1}"
        message = " ".join(problem.message.split())
        lines.append(f"{where}: {problem.severity}: {message}{source}")
    if len(ranked) > MAX_PROBLEMS:
        lines.append(f"… and {len(ranked) - MAX_PROBLEMS} more problems (not shown)")
    if not lines:
        lines.append("The editor reports no problems.")
    scope = f' path="{shown_path(item.path, worktree)}"' if item.path else ' scope="workspace"'
    return f"<problems{scope}>\n" + "\n".join(lines) + "\n</problems>"


def terminal_text(item: TerminalItem) -> str:
    lines = item.text.rstrip("\n").splitlines()
    cut = len(lines) - MAX_TERMINAL_LINES
    body = lines[-MAX_TERMINAL_LINES:]
    if cut > 0:
        body = [f"… ({cut} earlier lines left out)", *body]
    return f'<terminal name="{_attr(item.name)}">\n' + "\n".join(body) + "\n</terminal>"


def symbol_label(item: SymbolItem) -> str:
    return item.name


def symbol_text(item: SymbolItem, worktree: Path) -> str:
    lines = item.text.rstrip("\n").splitlines() or [""]
    body = [f"{item.line + n + 1}: {line}" for n, line in enumerate(lines[:MAX_SYMBOL_LINES])]
    if len(lines) > MAX_SYMBOL_LINES:
        body.append(f"… ({len(lines) - MAX_SYMBOL_LINES} more lines; read the file to see them)")
    kind = f' kind="{_attr(item.symbolKind)}"' if item.symbolKind else ""
    where = f"{shown_path(item.path, worktree)}:{item.line + 1}"
    return f'<symbol name="{_attr(item.name)}"{kind} at="{where}">\n' + "\n".join(body) + "\n</symbol>"


def editor_label(item: EditorItem, worktree: Path) -> str:
    return f"{shown_path(item.path, worktree)}:{item.line + 1}"


def editor_text(item: EditorItem, worktree: Path) -> str:
    """The short note about where the user is in the editor (prompts/context/editor*.txt)."""
    note = load("context/editor.txt").format(path=shown_path(item.path, worktree), line=item.line + 1)
    selection = item.selection
    if selection is None or not selection.text.strip():
        return note
    lines = selection.text.rstrip("\n").splitlines()
    shown = lines[:MAX_SELECTION_LINES]
    if len(lines) > MAX_SELECTION_LINES:
        shown.append(f"… ({len(lines) - MAX_SELECTION_LINES} more selected lines)")
    extra = load("context/editor_selection.txt").format(
        start=selection.startLine + 1, end=selection.endLine + 1, text="\n".join(shown)
    )
    return f"{note}\n{extra}"


def _attr(value: str) -> str:
    return value.replace('"', "'").replace("\n", " ")
