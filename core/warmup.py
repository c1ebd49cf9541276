"""What a long-lived host loads ahead of its first prompt, so that the prompt reaches the model at once.

The LSP server opens the app in the background and warms it there; a one-shot ``agentls run`` does
not, as it pays the same on its way to the first request (and makes a TLS context only for an HTTPS
model, while the first connection's TCP handshake travels). Nothing here fails: a model that does
not resolve (no key) or a CA bundle that does not load is reported by the prompt that needs it.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from core.config.schema import Config
from core.errors import AgentError
from core.llm import catalog
from core.llm.model import ModelInfo, resolve_model, resolve_small_model
from core.llm.transport import http_client, shared_tls_context
from core.tools.base import Tool

log = logging.getLogger(__name__)

# What the first model request imports besides the app itself (the lean routes, with their HTTP
# client core.llm.http and h11).
FIRST_REQUEST_MODULES = ("core.llm.lean",)


async def warm_up(config: Config, tools: Iterable[Tool[Any]]) -> None:
    """The default model's catalog entries, the model connection pool with its TLS context (for an
    HTTPS model), the stream decoders, the tools' JSON schemas."""
    model = await asyncio.to_thread(_default_model, config)
    if model is not None and (model.api_base or "").lower().startswith("https:"):
        # Loading the CA bundle costs OpenSSL ~45 ms with the GIL held: only for a model that will
        # need it (a local http:// server never does).
        try:
            await asyncio.to_thread(shared_tls_context)
        except (OSError, ValueError) as exc:  # a bad SSL_CERT_FILE: the prompt will say so
            log.debug("warm-up: cannot load the CA certificates: %s", exc)
    await asyncio.to_thread(_import_all, FIRST_REQUEST_MODULES)
    http_client()
    for tool in tools:
        tool.spec()  # the schema is made once per process, 6-9 ms for the built-in tools


def _default_model(config: Config) -> ModelInfo | None:
    """The default model, resolved (None when it does not resolve: the prompt reports why).

    Its limits and prices: a lookup the index has not seen yet parses litellm's 3 MB of JSON,
    better here than on the way to the first prompt."""
    catalog.load_index()
    if not config.model:
        return None
    try:
        model = resolve_model(config, config.model)
        resolve_small_model(config, model)
    except AgentError as exc:  # the prompt reports it, with the user watching
        log.debug("warm-up: the default model does not resolve: %s", exc)
        return None
    return model


def _import_all(names: Sequence[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:  # a library that moved a module: only the warm-up is lost
            log.info("warm-up: cannot import %s: %s", name, exc)
