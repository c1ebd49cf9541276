"""The session's review as a document a stock LSP client opens (``agentls.review``, the "Diff" lens).

The pending hunks as one unified diff, written to ``<data dir>/review/<session>-<digest>.diff`` and opened
with ``window/showDocument`` where the client supports it (stock Neovim does; eglot 1.9 does not:
the message then names the file). Neovim 0.11 and eglot 1.9 cannot open a document that only the
server holds (LSP 3.18's ``workspace/textDocumentContent``), so a file is what every client can open.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from core.config.paths import data_dir
from core.message.review import Hunk

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


def review_diff(hunks: list[Hunk], title: str) -> str:
    """The hunks as a unified diff, grouped by file, with a header saying how to act on them."""
    lines = [
        f"# agentls review: {len(hunks)} pending agent change(s) in session {title!r}",
        "# Keep or Undo each one in its file (code lens or code action), or all: agentls.keep, agentls.undo.",
    ]
    if not hunks:
        lines.append("# Nothing waits for review.")
    shown: str | None = None
    for hunk in hunks:
        if hunk.file != shown:
            shown = hunk.file
            lines += ["", f"--- a/{hunk.file}", f"+++ b/{hunk.file}"]
        if hunk.kind != "text":
            lines.append(f"@@ {hunk.lines_label()} @@ {hunk.id}")
            continue
        old = f"{hunk.beforeStart + 1},{len(hunk.before)}"
        new = f"{hunk.afterStart + 1},{len(hunk.after)}"
        lines.append(f"@@ -{old} +{new} @@ {hunk.id}")
        lines += ["-" + text.rstrip("\r\n") for text in hunk.before]
        lines += ["+" + text.rstrip("\r\n") for text in hunk.after]
    return "\n".join(lines) + "\n"


def review_file(session_id: str, text: str) -> Path:
    """Write the review of ``session_id`` where the client can open it.

    Named by its content: an editor that still holds an earlier review in a buffer shows that buffer
    when asked to open the same file again, so a changed review gets a new name (the old file goes).
    """
    folder = data_dir() / "review"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = folder / f"{session_id}-{digest}.diff"
    for old in folder.glob(f"{session_id}-*.diff"):
        if old != path:
            old.unlink(missing_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def show(server: AgentServer, path: Path) -> bool:
    """Open ``path`` in the client; False when it cannot (no ``window/showDocument``) or refused."""
    window = server.client_capabilities.window
    if window is None or window.show_document is None or not window.show_document.support:
        return False
    params = lsp.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
    try:
        result = await server.window_show_document_async(params)
    except JsonRpcException as exc:
        log.info("window/showDocument %s failed: %s", path, exc)
        return False
    return bool(result.success)
