"""User commands written as Markdown files: front matter for the settings, the body as the template.

agentls reads its own folders and those of OpenCode and Claude Code, so a team's commands work
unchanged. Precedence, lowest first (a later definition of a name replaces an earlier one): the
user's folders (Claude Code's, OpenCode's, agentls's), then the project's folders in the same order
— the project beats the user, and agentls's own folder beats the others at the same level.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from core.commands.model import CommandFileError, CommandInfo
from core.record import record
from core.trust import is_trusted

log = logging.getLogger(__name__)

FIELDS = ("description", "agent", "model", "subtask", "argument-hint")


@record
class Folder:
    """A folder of command files and which level it belongs to."""

    path: Path
    level: str  # "user" or "project"


def command_folders(worktree: Path, user_config_dir: Path, home: Path) -> list[Folder]:
    """Where command files live, lowest precedence first."""
    user = [
        home / ".claude" / "commands",
        home / ".config" / "opencode" / "command",
        home / ".config" / "opencode" / "commands",
        user_config_dir / "command",
        user_config_dir / "commands",
    ]
    if not is_trusted(worktree):  # ``!`cmd``` in a command file runs a shell: see core.trust
        return [Folder(p, "user") for p in user]
    project = [
        worktree / ".claude" / "commands",
        worktree / ".opencode" / "command",
        worktree / ".opencode" / "commands",
        worktree / ".agentls" / "command",
        worktree / ".agentls" / "commands",
    ]
    return [Folder(p, "user") for p in user] + [Folder(p, "project") for p in project]


def read_folder(folder: Path, errors: list[CommandFileError]) -> list[CommandInfo]:
    """The commands of one folder (subfolders name them ``sub:name``); bad files go to ``errors``."""
    if not folder.is_dir():
        return []
    found: list[CommandInfo] = []
    claude = folder.parent.name == ".claude"
    for path in sorted(folder.rglob("*.md")):
        name = ":".join(path.relative_to(folder).with_suffix("").parts)
        try:
            found.append(read_command_file(path, name, bare_model_ok=claude))
        except CommandFileError as exc:
            log.warning("command file skipped: %s", exc)
            errors.append(exc)
    return found


def read_command_file(path: Path, name: str, *, bare_model_ok: bool = False) -> CommandInfo:
    """Parse one command file (CommandFileError names the file and the line at fault).

    ``bare_model_ok``: Claude Code's files name a model without its provider (``claude-…``); such a
    model is left out (the session's model answers) instead of failing the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CommandFileError(path, 1, f"not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise CommandFileError(path, 1, f"cannot be read ({exc.strerror})") from exc
    meta, lines, body = _split(path, text.removeprefix("\ufeff"))
    template = body.strip()
    if not template:
        raise CommandFileError(path, 1, "the command has no template (the file's body is empty)")
    for key in meta:
        if key not in FIELDS:
            log.info("%s: front matter key %r is not used by agentls", path, key)

    def text_field(key: str) -> str | None:
        value = meta.get(key)
        if value is None:
            return None
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise CommandFileError(path, lines.get(key, 1), f"'{key}' must be text")
        return str(value).strip() or None

    subtask = meta.get("subtask", False)
    if not isinstance(subtask, bool):
        raise CommandFileError(path, lines.get("subtask", 1), "'subtask' must be true or false")
    model = text_field("model")
    if model is not None and "/" not in model and bare_model_ok:
        log.info("%s: model %r names no provider: the session's model answers", path, model)
        model = None
    if model is not None and "/" not in model:
        raise CommandFileError(path, lines.get("model", 1), f"'model' must be provider/model, not {model!r}")
    return CommandInfo(
        name=name,
        description=text_field("description") or _first_line(template),
        kind="user",
        template=template,
        agent=text_field("agent"),
        model=model,
        subtask=subtask,
        source=str(path),
        hint=text_field("argument-hint") or "",
    )


def _split(path: Path, text: str) -> tuple[dict[str, Any], dict[str, int], str]:
    """Front matter, the file line of each of its keys, and the body."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise CommandFileError(path, 1, "the front matter opened with --- is never closed with ---")
    header = "".join(lines[1:end])
    import yaml  # PyYAML, imported with the first front matter: most projects have none

    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1  # +1: 1-based, +1: the opening ---
        problem = getattr(exc, "problem", None) or str(exc)
        raise CommandFileError(path, line, f"the front matter is not valid YAML: {problem}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise CommandFileError(path, 2, f"the front matter must be keys and values, not {kind}")
    key_lines: dict[str, int] = {}
    for number, line in enumerate(lines[1:end], start=2):
        key = line.split(":", 1)[0].strip()
        if key and not line[:1].isspace():
            key_lines.setdefault(key, number)
    return {str(k): v for k, v in data.items()}, key_lines, "".join(lines[end + 1 :])


def _first_line(template: str) -> str:
    line = template.strip().splitlines()[0]
    return line if len(line) <= 80 else line[:79] + "…"
