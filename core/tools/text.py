"""Text a tool hands to the model and to storage, made valid UTF-8 whatever the file system held.

POSIX file names are bytes; Python decodes the ones that are not UTF-8 with ``surrogateescape``, so
a name such as ``caf\\xe9.txt`` (Latin-1) arrives as a string with a lone surrogate that no encoder
accepts. Tools keep working with such strings (they still open the right file); only what leaves the
tool is escaped, showing the byte as ``\\xe9`` so the model and the user can tell what is there.
"""

from __future__ import annotations

from typing import Any


def printable(text: str) -> str:
    """``text`` with every lone surrogate written as an escape (``\\xe9`` for a raw byte)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text  # the common case costs one encode
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")  # a byte that surrogateescape smuggled in
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def printable_data(value: Any) -> Any:
    """``value`` (JSON-like metadata) with every string, key included, made ``printable``."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(v) for v in value]
    return value
