"""Which config keys a front end of a shared agent may set for itself, and which are the agent's.

An agent host shares one agent per project folder between every front end attached to it
(docs/host.md, "Editors with settings of their own"). An editor's config layers (its
``agentls.config`` settings, its ``initializationOptions.config``) are applied per front end
where the key is a choice a turn makes when it starts — today the model (``FRONT_END_KEYS``): a
turn a front end starts runs on the model its layers set. Every other key shapes the agent itself
(providers and their keys, MCP servers, instructions, agents, permissions, tools, formatters,
snapshots, the small model that titles and compacts every session…): a front end whose layers set
those differently from the agent of the folder gets an agent of its own, and is told so.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.config.loader import Layer

FRONT_END_KEYS = frozenset({"model"})


def agent_wide(layers: Sequence[Layer]) -> list[Layer]:
    """``layers`` without the keys a front end sets for itself (a layer left empty stays, empty)."""
    return [
        Layer(layer.name, {k: v for k, v in layer.data.items() if k not in FRONT_END_KEYS}, layer.path)
        for layer in layers
    ]


def front_end_keys(layers: Sequence[Layer]) -> list[str]:
    """The keys of ``FRONT_END_KEYS`` that some layer sets, sorted."""
    return sorted({key for layer in layers for key in layer.data if key in FRONT_END_KEYS})


def set_keys(layers: Sequence[Layer]) -> set[str]:
    """The top-level keys the layers set."""
    return {key for layer in layers for key in layer.data}
