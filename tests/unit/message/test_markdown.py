"""A session as Markdown: folded tool calls, fences that no output can close, escaped summaries."""

from __future__ import annotations

from core.message.markdown import session_markdown
from core.message.models import (
    MessageError,
    MessageWithParts,
    PartTime,
    ReasoningPart,
    TextPart,
    ToolPart,
    ToolStateError,
    ToolTimeError,
)
from tests.unit.storage import factories as f


def _doc(output: str = "ok") -> tuple[str, list[MessageWithParts]]:
    s = f.session("prj_x", title="Fix <b>the</b> build\nnow")
    u = f.user(s.id)
    a = f.assistant(s.id, u.id).model_copy(update={"error": MessageError(name="api", message="over\nloaded")})
    failed = ToolPart(
        id="prt_fail",
        sessionID=s.id,
        messageID=a.id,
        callID="c1",
        tool="bash",
        state=ToolStateError(input={"command": "make"}, error="exit 2", time=ToolTimeError(start=1, end=2)),
    )
    messages = [
        MessageWithParts(
            info=u,
            parts=[
                TextPart(id="prt_u", sessionID=s.id, messageID=u.id, text="please fix"),
                TextPart(id="prt_ctx", sessionID=s.id, messageID=u.id, text="<file>x</file>", synthetic=True),
                TextPart(id="prt_ign", sessionID=s.id, messageID=u.id, text="hidden", ignored=True),
            ],
        ),
        MessageWithParts(
            info=a,
            parts=[
                ReasoningPart(
                    id="prt_r", sessionID=s.id, messageID=a.id, text="think", time=PartTime(start=1)
                ),
                f.completed_tool(s.id, a.id, output=output),
                failed,
                TextPart(id="prt_a", sessionID=s.id, messageID=a.id, text="done"),
            ],
        ),
    ]
    return session_markdown(s, messages), messages


def test_layout() -> None:
    md, _ = _doc()
    assert md.startswith("# Fix <b>the</b> build now\n")  # one line; Markdown text is the user's own
    assert md.index("please fix") < md.index("<summary>Reasoning</summary>") < md.index("done")
    assert "<summary>Context added by agentls</summary>" in md
    assert "hidden" not in md
    assert "<summary>Tool: read — a.py (completed)</summary>" in md
    assert "<summary>Tool: bash (error)</summary>" in md and "**Error**\n\n```\nexit 2\n```" in md
    assert "> **Error (api):** over loaded" in md
    assert md.endswith("\n") and not md.endswith("\n\n")
    # every <details> is closed, with blank lines so renderers read the body as Markdown
    assert md.count("<details>") == md.count("</details>") == 4
    assert md.count("</summary>\n\n") == 4


def test_output_cannot_close_the_fence() -> None:
    md, _ = _doc(output="before\n````\n</details>\nafter")
    assert "`````\nbefore\n````\n</details>\nafter\n`````" in md


def test_summary_is_escaped() -> None:
    s = f.session("prj_x")
    a = f.assistant(s.id, "msg_u")
    tool = f.completed_tool(s.id, a.id)
    tool.state.title = "</summary><script>x</script>"  # type: ignore[union-attr]
    md = session_markdown(s, [MessageWithParts(info=a, parts=[tool])])
    assert "<script>" not in md and "&lt;/summary&gt;&lt;script&gt;" in md
