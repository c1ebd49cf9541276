"""``question``: ask the user one or more multiple-choice questions and wait for the answers."""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.errors import ToolError
from core.events import QuestionItem, QuestionOption
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext


class OptionParam(BaseModel):
    label: str = Field(min_length=1, description="The choice as shown (1-5 words)")
    description: str = Field(default="", description="What choosing it means")


class QuestionParam(BaseModel):
    question: str = Field(min_length=1, description="The complete question")
    header: str = Field(
        max_length=30, description="A very short label for the question (at most 30 characters)"
    )
    options: list[OptionParam] = Field(description="The choices; the user may also type their own answer")
    multiple: bool = Field(default=False, description="Whether several choices may be selected")


class QuestionParams(ToolParams):
    questions: list[QuestionParam] = Field(min_length=1, description="The questions to ask")


class QuestionTool(Tool[QuestionParams]):
    id = "question"
    Params = QuestionParams
    truncate = "none"

    async def execute(self, params: QuestionParams, ctx: ToolContext) -> ToolResult:
        service = ctx.questions
        if service is None:
            raise ToolError(
                "Questions cannot be asked in this session; decide yourself or say what you need."
            )
        items = [
            QuestionItem(
                question=q.question,
                header=q.header,
                options=[QuestionOption(label=o.label, description=o.description) for o in q.options],
                multiple=q.multiple,
            )
            for q in params.questions
        ]
        answers = await service.ask(ctx.session_id, ctx.message_id, ctx.call_id, items)
        lines = [
            f'"{q.question}" = "{", ".join(a) if a else "(no answer)"}"'
            for q, a in zip(params.questions, answers, strict=True)
        ]
        count = len(params.questions)
        return ToolResult(
            title=f"Asked {count} question{'s' if count != 1 else ''}",
            output="The user answered:\n" + "\n".join(lines) + "\nContinue with these answers in mind.",
            metadata={"answers": answers},
        )
