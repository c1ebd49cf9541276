"""A question request as one ACP form (``elicitation/create``), for clients that declare forms.

A permission dialog's options carry a ``kind`` from four (allow/reject, once/always), and some
clients label options by kind, so every choice of a question looked the same there. A form field
has its own values and titles: each choice is a ``oneOf`` entry (single choice) or an ``anyOf``
item (several), and a question without choices is a text field, so free-text questions can be
asked too. Clients without forms keep the dialogs of ``acp_server.dialogs``.
"""

from __future__ import annotations

import logging
from typing import Any

from acp.schema import (
    CreateFormSessionElicitationRequest,
    ElicitationMultiSelectPropertySchema,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    TitledMultiSelectItems,
)

from core.events import QuestionItem, QuestionRequest

log = logging.getLogger(__name__)


def field_name(index: int) -> str:
    """The form field of the question at ``index``."""
    return f"q{index + 1}"


def form_for(session_id: str, request: QuestionRequest) -> CreateFormSessionElicitationRequest:
    """The form asking every question of ``request`` at once."""
    properties: dict[str, Any] = {field_name(n): _field(item) for n, item in enumerate(request.questions)}
    message = request.questions[0].question if len(request.questions) == 1 else "The agent asks:"
    return CreateFormSessionElicitationRequest(
        mode="form",
        session_id=session_id,
        tool_call_id=request.callID,
        message=message,
        requested_schema=ElicitationSchema(type="object", properties=properties, required=list(properties)),
    )


def _field(item: QuestionItem) -> ElicitationStringPropertySchema | ElicitationMultiSelectPropertySchema:
    choices = [
        EnumOption(const=o.label, title=o.label, description=o.description or None) for o in item.options
    ]
    title = item.header or None
    if not choices:
        return ElicitationStringPropertySchema(
            type="string", title=title, description=item.question, min_length=1
        )
    if item.multiple:
        return ElicitationMultiSelectPropertySchema(
            type="array",
            title=title,
            description=item.question,
            min_items=1,
            items=TitledMultiSelectItems(any_of=choices),
        )
    return ElicitationStringPropertySchema(
        type="string", title=title, description=item.question, one_of=choices
    )


def answers_from(request: QuestionRequest, response: Any) -> list[list[str]] | None:
    """The answers in an ``accept`` response (one list per question); None for a declined or
    cancelled form, or content that does not answer every question with its own choices."""
    if not isinstance(response, dict) or response.get("action") != "accept":
        return None
    content = response.get("content")
    if not isinstance(content, dict):
        return None
    answers: list[list[str]] = []
    for n, item in enumerate(request.questions):
        value = content.get(field_name(n))
        picked = [value] if isinstance(value, str) else value
        if not isinstance(picked, list) or not picked or not all(isinstance(v, str) and v for v in picked):
            log.info("question %s: the form's answer to %s is unusable: %r", request.id, field_name(n), value)
            return None
        labels = {o.label for o in item.options}
        if (labels and not set(picked) <= labels) or (not item.multiple and len(picked) > 1):
            log.info("question %s: %r is not among the choices of %s", request.id, picked, field_name(n))
            return None
        answers.append(list(picked))
    return answers
