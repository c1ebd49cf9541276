"""The findings of an agent code review, read from its answer.

The review prompt (``prompts/commands/review.md``) asks for one line per finding::

    1. [high] src/calc.py:12 - add() subtracts: it returns a - b.

and ``No findings.`` when there are none. Lines in that shape anywhere in the answer are findings;
the rest of the answer (a summary, the reasoning) is for the reader only. Severities a model may
choose instead of the asked ones (``error``, ``critical``, ``nit``) are mapped to the three levels.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.message.findings import Finding, Severity

SEVERITIES: dict[str, Severity] = {
    "critical": "high",
    "blocker": "high",
    "high": "high",
    "error": "high",
    "major": "high",
    "medium": "medium",
    "warning": "medium",
    "moderate": "medium",
    "low": "low",
    "minor": "low",
    "info": "low",
    "nit": "low",
}
_LINE = re.compile(
    r"""^\s*(?:[-*]|\d+[.)])?\s*          # a list marker, if any
    \*{0,2}\[(?P<severity>[A-Za-z]+)\]\*{0,2}\s+
    `?(?P<path>[^\s`:]+):(?P<line>\d+)(?:-(?P<end>\d+))?`?   # path:line or path:start-end
    \s*(?:[-\u2013\u2014:]\s*)?(?P<reason>\S.*)$""",
    re.VERBOSE,
)
NO_FINDINGS = re.compile(r"^\W*no findings\W*$", re.IGNORECASE | re.MULTILINE)


def parse_findings(answer: str, root: Path) -> list[Finding]:
    """The findings listed in ``answer``, in order; lines naming a path outside ``root`` or an
    unknown severity are not findings. ``[]`` both for "No findings." and for an answer without any."""
    found: list[Finding] = []
    for raw in answer.splitlines():
        match = _LINE.match(raw)
        if match is None:
            continue
        severity = SEVERITIES.get(match["severity"].lower())
        path = _inside(match["path"], root)
        if severity is None or path is None:
            continue
        line = int(match["line"])
        end = int(match["end"]) if match["end"] else line
        reason = match["reason"].strip()
        if line < 1 or end < line or not reason:
            continue
        found.append(
            Finding(
                id=f"f{len(found) + 1}",
                file=path,
                path=str(root.resolve() / path),
                line=line,
                endLine=end,
                severity=severity,
                reason=reason,
            )
        )
    return found


def says_no_findings(answer: str) -> bool:
    """Whether the answer says, on a line of its own, that the review found nothing."""
    return NO_FINDINGS.search(answer) is not None


def _inside(path: str, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX), or None when it points outside it."""
    root = root.resolve()
    full = (root / path.removeprefix("./")).resolve()
    if full != root and root in full.parents:
        return full.relative_to(root).as_posix()
    return None
