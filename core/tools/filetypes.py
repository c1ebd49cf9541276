"""Which files are images, which are binary: the read tool refuses binaries and attaches images."""

from __future__ import annotations

from pathlib import Path

IMAGE_MIME: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}

# fmt: off
BINARY_EXTENSIONS: frozenset[str] = frozenset({
    ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".class", ".exe",
    ".dll", ".so", ".dylib", ".o", ".a", ".lib", ".obj", ".bin", ".dat", ".pyc", ".pyo", ".wasm",
    ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".ico", ".bmp",
    ".tif", ".tiff", ".mp3", ".mp4", ".mov", ".avi", ".mkv", ".wav", ".flac", ".ogg", ".ttf", ".otf",
    ".woff", ".woff2", ".sqlite", ".db", ".iso", ".dmg",
})
# fmt: on

SNIFF_BYTES = 8192


def image_mime(path: Path) -> str | None:
    """The MIME type of an image the model can look at, by extension."""
    return IMAGE_MIME.get(path.suffix.lower())


def attachable_mime(path: Path) -> str | None:
    """The MIME type of a file the read tool hands to the model whole: an image or a PDF."""
    return "application/pdf" if path.suffix.lower() == ".pdf" else image_mime(path)


def binary_reason(path: Path, head: bytes) -> str | None:
    """Why a file is not text (by extension, NUL bytes, or bytes that are not UTF-8), or None."""
    if path.suffix.lower() in BINARY_EXTENSIONS:
        return f"its extension ({path.suffix}) marks a binary format"
    sample = head[:SNIFF_BYTES]
    if b"\x00" in sample:
        return "it contains NUL bytes"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the sniff window is not a sign of binary data.
        if not (len(sample) == SNIFF_BYTES and exc.start >= len(sample) - 3):
            return "it is not valid UTF-8 text"
    return None
