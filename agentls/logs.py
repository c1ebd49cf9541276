"""Logging for the long-running front ends (``serve``, ``acp``): stdout is their protocol channel."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence


def configure_logging(log_file: str | None, level: str, chatty: Sequence[str] = ()) -> None:
    """Log to ``log_file`` or stderr at ``level``, replacing any handler already installed.

    ``chatty``: libraries that log every message they pass at INFO; they stay at WARNING unless
    ``level`` is DEBUG.
    """
    handler: logging.Handler = (
        logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    if root.level > logging.DEBUG:
        for name in chatty:
            logging.getLogger(name).setLevel(max(root.level, logging.WARNING))
