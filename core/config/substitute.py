"""``{env:VAR}`` and ``{file:path}`` substitution inside the string values of a config layer."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from core.errors import ConfigError

_TOKEN = re.compile(r"\{(env|file):([^{}]+)\}")


def _replace(value: str, base_dir: Path, source: str, key_path: str) -> str:
    def one(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2).strip()
        if kind == "env":
            # A missing variable is an empty string, so optional secrets need no second config file.
            return os.environ.get(arg, "")
        target = Path(arg).expanduser()
        if not target.is_absolute():
            target = base_dir / target
        try:
            return target.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            raise ConfigError(
                f"{source}: {key_path}: {{file:{arg}}} refers to {target}, which does not exist"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{source}: {key_path}: {{file:{arg}}} could not be read: {exc}") from None

    # One pass: text brought in by a substitution is not scanned again.
    return _TOKEN.sub(one, value)


def substitute(data: Any, base_dir: Path, source: str, key_path: str = "") -> Any:
    """A copy of ``data`` with every ``{env:…}`` / ``{file:…}`` in string values replaced."""
    if isinstance(data, str):
        return _replace(data, base_dir, source, key_path or "(top level)")
    if isinstance(data, dict):
        return {
            key: substitute(value, base_dir, source, f"{key_path}.{key}" if key_path else str(key))
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [substitute(item, base_dir, source, f"{key_path}[{i}]") for i, item in enumerate(data)]
    return data
