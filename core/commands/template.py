"""Expand a command template: arguments, ``@file`` references and the output of ``!`shell` ``."""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

from core.record import record

RunShell = Callable[[str], Awaitable[str]]
CheckFile = Callable[[Path], Awaitable[None]]
"""Returns when a template may attach the file (its permissions, as ``read`` asks them); raises if not."""

_POSITIONAL = re.compile(r"\$(\d+)")
_SHELL = re.compile(r"!`([^`\n]+)`")
_FILE = re.compile(r"(?<![\w@`/])@([^\s`'\"<>|]+)")
_TRAILING = ".,;:!?)]}"


@record
class Expanded:
    """The prompt text of a command and the files its template names (absolute paths)."""

    text: str
    files: list[Path]


def split_arguments(raw: str) -> list[str]:
    """The words of ``raw`` as a shell splits them (quotes group words); plain spaces when unbalanced."""
    try:
        return shlex.split(raw)
    except ValueError:  # an apostrophe in "don't": the user typed prose, not shell words
        return raw.split()


def fill_arguments(template: str, raw: str) -> str:
    """``$ARGUMENTS`` becomes all arguments, ``$1``… each word; the highest ``$N`` takes the rest.

    Arguments given to a template with no placeholder are added after it, so none is lost.
    """
    raw = raw.strip()
    words = split_arguments(raw)
    numbers = [int(n) for n in _POSITIONAL.findall(template) if int(n) > 0]
    last = max(numbers, default=0)

    def positional(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n == 0:
            return match.group(0)
        if n == last:
            return " ".join(words[n - 1 :])
        return words[n - 1] if n <= len(words) else ""

    text = _POSITIONAL.sub(positional, template)
    has_all = "$ARGUMENTS" in text
    text = text.replace("$ARGUMENTS", raw)
    if raw and not has_all and not numbers:
        text = f"{text.rstrip()}\n\n{raw}"
    return text


def file_references(text: str, directory: Path) -> list[Path]:
    """Files named ``@path`` in ``text`` that exist (relative to ``directory``, ``~/`` or absolute),
    resolved as the ``read`` tool resolves its path (``..`` and symlinks followed)."""
    found: list[Path] = []
    for match in _FILE.finditer(text):
        word = match.group(1).rstrip(_TRAILING)
        if not word:
            continue
        path = Path(word).expanduser()
        path = (path if path.is_absolute() else directory / path).resolve()
        if path.is_file() and path not in found:
            found.append(path)
    return found


async def run_shells(text: str, run: RunShell) -> str:
    """Each ``!`command` `` replaced by what the command printed, in order, one at a time."""
    out: list[str] = []
    end = 0
    for match in _SHELL.finditer(text):
        out.append(text[end : match.start()])
        out.append(await run(match.group(1).strip()))
        end = match.end()
    out.append(text[end:])
    return "".join(out)


async def expand(
    template: str, arguments: str, directory: Path, run: RunShell, check_file: CheckFile
) -> Expanded:
    """The prompt a command sends: arguments filled in, files found and each allowed by
    ``check_file`` (before any shell command runs: a refusal sends and runs nothing), then shell
    commands run."""
    text = fill_arguments(template, arguments)
    files = file_references(_SHELL.sub("", text), directory)
    for path in files:
        await check_file(path)
    return Expanded(text=await run_shells(text, run), files=files)
