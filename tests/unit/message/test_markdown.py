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
    assert "hidden" not in md
    assert "<summary>Tool: read — a.py (completed)</summary>" in md
    assert "<summary>Tool: bash (error)</summary>" in md and "**Error**\n\n```\nexit 2\n```" in md
    assert "> **Error (api):** over loaded" in md
    assert md.endswith("\n") and not md.endswith("\n\n")
    # every <details> is closed, with blank lines so renderers read the body as Markdown
    assert md.count("<details>") == md.count("</details>") == 3
    assert md.count("</summary>\n\n") == 3


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


def test_what_agentls_added_and_the_ids_are_left_out() -> None:
    md, messages = _doc()
    session_id = messages[0].info.sessionID
    assert session_id not in md and "msg_" not in md and "prt_" not in md
    assert "<file>x</file>" not in md and "Context added" not in md


def test_editor_context_and_a_continue_leave_nothing_behind() -> None:
    s = f.session("prj_x", title="t").model_copy(update={"parentID": "ses_parent"})
    u = f.user(s.id)
    note = "<editor-context>\nThe user is in src/app.py, line 3.\n</editor-context>"
    cont = f.user(s.id)
    messages = [
        MessageWithParts(
            info=u,
            parts=[
                TextPart(id="prt_1", sessionID=s.id, messageID=u.id, text=note, synthetic=True),
                TextPart(id="prt_2", sessionID=s.id, messageID=u.id, text="what is this?"),
            ],
        ),
        MessageWithParts(
            info=cont,
            parts=[
                TextPart(
                    id="prt_3",
                    sessionID=s.id,
                    messageID=cont.id,
                    text="Continue if you have next steps",
                    synthetic=True,
                )
            ],
        ),
    ]
    md = session_markdown(s, messages)
    assert "editor-context" not in md and "src/app.py" not in md and "Continue" not in md
    assert md.count("## User") == 1 and "what is this?" in md
    assert "ses_parent" not in md and "A sub-agent's session" in md
