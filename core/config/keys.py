"""Provider keys in the user's config file (``agentls auth``), and MCP servers switched on or off
(``agentls mcp enable|disable``): written owner-only, nothing else touched.

A key goes to ``provider.<id>.options.api_key`` of the user config (``~/.config/agentls/agentls.json``
or the ``agentls.jsonc`` already there); a named environment variable goes there as ``{env:NAME}``,
which the loader substitutes when it reads the file (``core.config.substitute``). The file is
replaced as a whole by a new one created with mode 0600 inside a 0700 folder, so the key is never
readable by others, not even for a moment. A file that is not plain JSON (comments, trailing commas)
is left as it is: rewriting it would drop the user's comments.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from core.config.loader import FILE_NAMES
from core.config.paths import config_dir
from core.errors import ConfigError, InvalidInputError
from core.record import record

log = logging.getLogger(__name__)

_PROVIDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@record
class StoredKey:
    """Where a provider's key (or the variable naming it) was written."""

    path: Path
    provider: str
    env: str | None  # the variable the config now reads the key from; None: the key itself


def user_config_file(folder: Path | None = None) -> Path:
    """The user config file ``agentls auth`` writes: the one there is, else ``agentls.json``."""
    folder = folder if folder is not None else config_dir()
    for name in FILE_NAMES:
        if (folder / name).is_file():
            return folder / name
    return folder / FILE_NAMES[0]


def store_key(
    provider: str, *, key: str | None = None, env: str | None = None, folder: Path | None = None
) -> StoredKey:
    """Write ``key``, or ``{env:ENV}``, as ``provider``'s api_key in the user config (mode 0600)."""
    if not _PROVIDER.match(provider):
        raise InvalidInputError(f"{provider!r} is not a provider id (letters, digits, '_', '.', '-')")
    if (key is None) == (env is None):
        raise InvalidInputError("give either a key or the name of an environment variable, not both")
    if env is not None:
        if not _ENV_NAME.match(env):
            raise InvalidInputError(f"{env!r} is not an environment variable name")
        value = f"{{env:{env}}}"
    else:
        value = (key or "").strip()
        if not value or any(c.isspace() for c in value):
            raise InvalidInputError("the key is empty or has spaces in it; paste the key alone")
        if "{env:" in value or "{file:" in value:
            raise InvalidInputError("that looks like a substitution, not a key: use --env NAME")
    path = user_config_file(folder)
    data = _read(path)
    node = data
    for name in ("provider", provider, "options"):
        child = node.setdefault(name, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: {name} is not an object; fix it by hand, nothing was written")
        node = child
    node["api_key"] = value
    _write_private(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    log.info("stored the %s key in %s", provider, path)
    return StoredKey(path, provider, env)


def set_mcp_enabled(name: str, enabled: bool, folder: Path | None = None) -> Path:
    """Write ``mcp.<name>.enabled`` in the user config (mode 0600); the file's path."""
    path = user_config_file(folder)
    data = _read(path)
    servers = data.setdefault("mcp", {})
    if not isinstance(servers, dict) or not isinstance(servers.setdefault(name, {}), dict):
        raise ConfigError(f"{path}: mcp.{name} is not an object; fix it by hand, nothing was written")
    servers[name]["enabled"] = enabled
    _write_private(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    log.info("MCP server %s %s in %s", name, "enabled" if enabled else "disabled", path)
    return path


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} could not be read ({exc}); nothing was written") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ConfigError(
            f"{path} is not plain JSON (comments or trailing commas?), and rewriting it would lose "
            'them: add "provider": {"<id>": {"options": {"api_key": "..."}}} to it by hand'
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; nothing was written")
    return data


def _write_private(path: Path, text: str) -> None:
    """Replace ``path`` by a file holding ``text`` that only its owner can read or write."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".agentls-", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
