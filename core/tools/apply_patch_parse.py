"""Reading the patch format the GPT-5 and codex models were trained on into file operations.

The format, as a model writes it::

    *** Begin Patch
    *** Add File: path          every following line starts with "+"
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       optional, right after Update File
    @@ optional line to find first (a def, a class)
     context line               " " context, "-" removed, "+" added
    *** End of File             optional: the hunk ends at the end of the file
    *** End Patch

Parsing checks the whole text before anything is applied; an error names the patch line and says
what was expected there, so the model can rewrite the patch.
"""

from __future__ import annotations

import re
from dataclasses import field

from core.errors import ToolError
from core.record import record, struct

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
END_OF_FILE = "*** End of File"
_FILE_HEADERS = (ADD, DELETE, UPDATE)
# Models that know the shell form sometimes send it whole: `apply_patch <<'EOF'` ... `EOF`.
_HEREDOC = re.compile(r"^(?:apply_patch\s*)?<<-?\s*(['\"]?)(\w+)\1\s*$")


class PatchError(ToolError):
    """A patch that cannot be read or does not apply; the message says where and why."""


@struct
class Hunk:
    """One ``@@`` section of an Update File: the lines it expects (``old``) and writes (``new``)."""

    number: int  # 1-based within its file, for messages
    header: str  # the text after "@@" ("" when none): a line to find before the context
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    end_of_file: bool = False


@record
class AddFile:
    path: str
    content: str


@record
class DeleteFile:
    path: str


@record
class UpdateFile:
    path: str
    move_to: str | None
    hunks: list[Hunk]


FileOp = AddFile | DeleteFile | UpdateFile


def parse_patch(text: str) -> list[FileOp]:
    """The file operations of ``text``, in order; a ``PatchError`` naming the line when malformed."""
    lines = _unwrapped(text.replace("\r\n", "\n").strip("\n").split("\n"))
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError(f"The patch must start with the line '{BEGIN}'.")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchError(f"The patch must end with the line '{END}'.")
    ops: list[FileOp] = []
    i, last = 1, len(lines) - 1
    while i < last:
        line = lines[i]
        if line.startswith(ADD):
            path = _path(line, ADD, i)
            body, i = _block(lines, i + 1, last)
            bad = next((n for n, b in body if not b.startswith("+")), None)
            if bad is not None:
                raise PatchError(
                    f"Patch line {bad + 1}: every line of '*** Add File: {path}' must start with '+'; "
                    f"got {lines[bad]!r}."
                )
            content = "".join(b[1:] + "\n" for _, b in body)
            ops.append(AddFile(path, content))
        elif line.startswith(DELETE):
            path = _path(line, DELETE, i)
            body, i = _block(lines, i + 1, last)
            if body:
                n, extra = body[0]
                raise PatchError(
                    f"Patch line {n + 1}: '*** Delete File: {path}' takes no lines; got {extra!r}."
                )
            ops.append(DeleteFile(path))
        elif line.startswith(UPDATE):
            path = _path(line, UPDATE, i)
            i += 1
            move_to = None
            if i < last and lines[i].startswith(MOVE):
                move_to = _path(lines[i], MOVE, i)
                i += 1
            body, i = _block(lines, i, last)
            hunks = _hunks(path, body, lines)
            if not hunks and move_to is None:
                raise PatchError(
                    f"'*** Update File: {path}' has no hunks: add '@@' sections with its changes."
                )
            ops.append(UpdateFile(path, move_to, hunks))
        elif not line.strip():
            i += 1  # blank lines between file sections
        else:
            raise PatchError(
                f"Patch line {i + 1}: expected '*** Add File:', '*** Update File:' or '*** Delete File:', "
                f"got {line!r}."
            )
    if not ops:
        raise PatchError("The patch changes no file: put file sections between its first and last line.")
    return ops


def _unwrapped(lines: list[str]) -> list[str]:
    """``lines`` without a heredoc wrapper around them (the shell form of the same call)."""
    if len(lines) >= 2:
        opening = _HEREDOC.match(lines[0].strip())
        if opening and lines[-1].strip() == opening.group(2):
            return lines[1:-1]
    return lines


def _path(line: str, prefix: str, index: int) -> str:
    path = line[len(prefix) :].strip()
    if not path:
        raise PatchError(f"Patch line {index + 1}: '{prefix.strip()}' needs a file path.")
    return path


def _block(lines: list[str], start: int, last: int) -> tuple[list[tuple[int, str]], int]:
    """The lines from ``start`` up to the next file header or the end, with their indexes."""
    end = start
    while end < last and not lines[end].startswith(_FILE_HEADERS):
        end += 1
    body = [(n, lines[n]) for n in range(start, end)]
    while body and not body[-1][1].strip():  # blank lines before the next section separate it
        body.pop()
    return body, end


def _hunks(path: str, body: list[tuple[int, str]], lines: list[str]) -> list[Hunk]:
    hunks: list[Hunk] = []
    current: Hunk | None = None
    for n, line in body:
        if line.startswith("@@"):
            current = Hunk(len(hunks) + 1, line[2:].strip().removesuffix("@@").strip())
            hunks.append(current)
            continue
        if line.strip() == END_OF_FILE:
            if current is None or not (current.old or current.new):
                raise PatchError(f"Patch line {n + 1}: '{END_OF_FILE}' must close a hunk of {path}.")
            current.end_of_file = True
            continue
        if current is None:  # the first hunk may leave out its "@@" line
            current = Hunk(1, "")
            hunks.append(current)
        elif current.end_of_file:
            raise PatchError(f"Patch line {n + 1}: nothing may follow '{END_OF_FILE}' in a hunk of {path}.")
        kind, rest = line[:1], line[1:]
        if kind == " " or not line:  # a blank context line often loses its leading space
            current.old.append(rest)
            current.new.append(rest)
        elif kind == "-":
            current.old.append(rest)
        elif kind == "+":
            current.new.append(rest)
        else:
            raise PatchError(
                f"Patch line {n + 1}: in hunk {current.number} of {path}, every line must start with "
                f"' ' (context), '-' (removed) or '+' (added); got {lines[n]!r}."
            )
    for hunk in hunks:
        if not hunk.old and not hunk.new:
            raise PatchError(f"Hunk {hunk.number} of {path} is empty: give its context and changed lines.")
    return hunks
