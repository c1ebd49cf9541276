"""Offline tiktoken encodings: which one fits a model, and loading it without the network.

tiktoken downloads its BPE files on first use, which fails on offline machines (and would hang a
language server on a slow network). litellm ships the files, so the cache directory is pointed at
its copy before tiktoken is asked, and an encoding whose file is missing is never fetched: the
counter falls back to a chars/4 estimate instead, with one warning per process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from core.llm.own_env import set_own

log = logging.getLogger(__name__)

O200K = "o200k_base"
CL100K = "cl100k_base"

# OpenAI families that tokenise with o200k; everything else gets cl100k as an estimate.
_O200K_MODELS = re.compile(r"^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)", re.I)
# tiktoken names its cache files after the sha1 of the URL it would download them from.
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"


class Encoder(Protocol):
    """The one method of ``tiktoken.Encoding`` the counter uses."""

    def encode_ordinary(self, text: str) -> list[int]: ...


def encoding_name_for(model_id: str) -> str:
    """The tiktoken encoding for a model id such as ``openai/gpt-4o`` or ``claude-sonnet-4``."""
    base = model_id.rsplit("/", 1)[-1]
    return O200K if _O200K_MODELS.match(base) else CL100K


def tokenizer_dir() -> Path | None:
    """Where the BPE files are: ``CUSTOM_TIKTOKEN_CACHE_DIR`` if set, else litellm's bundled copy."""
    custom = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR")
    if custom:
        return Path(custom)
    # find_spec locates the package without importing it (importing litellm costs seconds).
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"


def configure_offline() -> Path | None:
    """Point tiktoken (and litellm, which would overwrite it) at the bundled files: for this process
    only, as tiktoken reads nothing else (tool commands get the user's values, ``core.llm.own_env``)."""
    directory = tokenizer_dir()
    if directory is None:
        return None
    set_own("TIKTOKEN_CACHE_DIR", str(directory))
    set_own("CUSTOM_TIKTOKEN_CACHE_DIR", str(directory))
    return directory


def _tiktoken_loader(name: str) -> Encoder:
    directory = configure_offline()
    if directory is None:
        raise FileNotFoundError("litellm is not installed, so no tiktoken files are bundled")
    blob = directory / hashlib.sha1(_BLOB_URL.format(name=name).encode()).hexdigest()
    if not blob.is_file():
        # Checked here so that tiktoken never falls through to a download.
        raise FileNotFoundError(f"no {name} file in {directory}")
    import tiktoken

    encoding: Encoder = tiktoken.get_encoding(name)
    return encoding


class EncodingLoader:
    """Loads each encoding once; remembers failures and warns about them once."""

    def __init__(self, loader: Callable[[str], Encoder] = _tiktoken_loader) -> None:
        self._loader = loader
        self._loaded: dict[str, Encoder | None] = {}
        self._lock = threading.Lock()
        self._warned = False

    def get(self, name: str) -> Encoder | None:
        """The encoding, or None when it cannot load (the caller estimates chars/4)."""
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            try:
                encoder: Encoder | None = self._loader(name)
            except (OSError, ValueError, ImportError, KeyError) as exc:
                encoder = None
                if not self._warned:
                    self._warned = True
                    log.warning("token counts are estimated as chars/4: cannot load %s (%s)", name, exc)
            self._loaded[name] = encoder
            return encoder


DEFAULT_LOADER = EncodingLoader()
