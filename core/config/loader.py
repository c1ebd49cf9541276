"""Config layers: find them, merge them (later wins) and validate the result.

Order, lowest first: the user file, project files from the worktree root down to the working directory
(the nearer wins), ``AGENTLS_CONFIG`` (a path), ``AGENTLS_CONFIG_CONTENT`` (inline JSON), layers the host
adds (an editor's initialization options), and last the environment switches.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from core.config import jsonc
from core.config.merge import ACTIONS, KeyPath, Sources, format_path, merge_into
from core.config.paths import config_dir, worktree_of
from core.config.schema import Config
from core.config.substitute import substitute
from core.config.validate import validate
from core.errors import ConfigError
from core.record import record
from core.trust import is_trusted

logger = logging.getLogger(__name__)

FILE_NAMES = ("agentls.json", "agentls.jsonc")
PROJECT_SUBDIR = ".agentls"
ENV_LAYER = "environment"
_TRUTHY = {"1", "true", "yes", "on"}


@record
class Layer:
    """One source of config data; ``path`` is the file it came from, if any ({file:} is relative to it)."""

    name: str
    data: dict[str, Any]
    path: Path | None = None


@record
class ResolvedConfig:
    """The validated config, which layer set each key path, and warnings (unknown keys)."""

    config: Config
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def source_of(self, path: KeyPath) -> str:
        """The layer that set ``path``; a value set whole (``"snapshot": false``) sets every key below it."""
        for end in range(len(path), 0, -1):
            found = self.sources.get(format_path(path[:end]))
            if found is not None:
                return found
        return "default"


def read_layer(path: Path, name: str) -> Layer:
    """Read one JSON/JSONC file as a layer; ConfigError names the file on any problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{name}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{name}: cannot read the file: {exc}") from None
    data = jsonc.loads(text, str(path))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a JSON object, not {type(data).__name__}")
    return Layer(name=name, data=data, path=path)


def _files_in(folder: Path, kind: str) -> list[Layer]:
    return [read_layer(folder / n, f"{kind} {folder / n}") for n in FILE_NAMES if (folder / n).is_file()]


def _project_folders(directory: Path, worktree: Path) -> list[Path]:
    """Folders from ``worktree`` down to ``directory`` (farther first); just ``directory`` if outside it."""
    if not directory.is_relative_to(worktree):
        return [directory]
    folders = [directory, *[p for p in directory.parents if p.is_relative_to(worktree)]]
    return list(reversed(folders))


def _file_layers(directory: Path, worktree: Path) -> list[Layer]:
    layers = _files_in(config_dir(), "user")
    # An untrusted workspace's own files are never read: they could start MCP servers, allow commands.
    project = _project_folders(directory, worktree) if is_trusted(directory) and is_trusted(worktree) else []
    for folder in project:
        layers += _files_in(folder, "project")
        layers += _files_in(folder / PROJECT_SUBDIR, "project")
    explicit = os.environ.get("AGENTLS_CONFIG", "").strip()
    if explicit:
        path = Path(explicit).expanduser().resolve()
        layers.append(read_layer(path, f"AGENTLS_CONFIG {path}"))
    content = os.environ.get("AGENTLS_CONFIG_CONTENT", "").strip()
    if content:
        data = jsonc.loads(content, "AGENTLS_CONFIG_CONTENT")
        if not isinstance(data, dict):
            raise ConfigError("AGENTLS_CONFIG_CONTENT: the config must be a JSON object")
        layers.append(Layer(name="AGENTLS_CONFIG_CONTENT", data=data))
    return layers


def env_switch_layer() -> Layer | None:
    """The environment switches as a layer (applied last), or None when none is set."""
    data: dict[str, Any] = {}
    compaction: dict[str, Any] = {}
    if os.environ.get("AGENTLS_DISABLE_AUTOCOMPACT", "").strip().lower() in _TRUTHY:
        compaction["auto"] = False
    if os.environ.get("AGENTLS_DISABLE_PRUNE", "").strip().lower() in _TRUTHY:
        compaction["prune"] = False
    if compaction:
        data["compaction"] = compaction
    permission = os.environ.get("AGENTLS_PERMISSION", "").strip()
    if permission:
        # A bare word is accepted as well as JSON: AGENTLS_PERMISSION=allow is what people type.
        data["permission"] = (
            permission if permission in ACTIONS else jsonc.loads(permission, "AGENTLS_PERMISSION")
        )
    return Layer(name=ENV_LAYER, data=data) if data else None


def discover_layers(directory: Path, worktree: Path) -> list[Layer]:
    """Every config layer for ``directory`` inside ``worktree``, lowest precedence first."""
    layers = _file_layers(Path(directory).resolve(), Path(worktree).resolve())
    switches = env_switch_layer()
    return [*layers, switches] if switches is not None else layers


def resolve(layers: Sequence[Layer]) -> ResolvedConfig:
    """Merge ``layers`` in order (later wins) after substitution, then validate."""
    merged: dict[str, Any] = {}
    sources: Sources = {}
    for layer in layers:
        # Extra layers come from outside (an editor's initialization options): check the shape here too.
        if not isinstance(layer.data, dict):
            raise ConfigError(
                f"{layer.name}: the config must be a JSON object, not {type(layer.data).__name__}"
            )
        base_dir = layer.path.parent if layer.path is not None else Path.cwd()
        data = substitute(layer.data, base_dir, layer.name)
        merge_into(merged, data, layer.name, sources)
    config, warnings = validate(merged, sources)
    # Callers show the warnings their own way (stderr, an editor message); log them only for debugging.
    for warning in warnings:
        logger.debug("config: %s", warning)
    return ResolvedConfig(
        config=config,
        sources={format_path(path): name for path, name in sources.items()},
        warnings=warnings,
    )


def load_config(
    directory: Path, worktree: Path | None = None, extra_layers: Sequence[Layer] = ()
) -> ResolvedConfig:
    """The resolved config for ``directory``: files, then ``extra_layers``, then environment switches."""
    directory = Path(directory).resolve()
    tree = Path(worktree).resolve() if worktree is not None else worktree_of(directory)
    layers = [*_file_layers(directory, tree), *extra_layers]
    switches = env_switch_layer()
    if switches is not None:
        layers.append(switches)
    logger.debug("config layers: %s", [layer.name for layer in layers])
    return resolve(layers)
