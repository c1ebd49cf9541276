"""Turning models into rows and rows back into validated models.

Every row is validated on read. A row that fails is an ``InvalidRowError`` naming its table and
id; a caller that would rather show what it can (the CLI's ``show``/``export``) passes an
``on_invalid`` callback and receives an ``InvalidRow`` report for each bad row instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from core.errors import StorageError
from core.message.models import (
    LAZY,
    AnyPart,
    AssistantMessage,
    MessageAdapter,
    PartAdapter,
    Session,
    Todo,
    UserMessage,
)
from core.record import record

T = TypeVar("T")

AnyMessage = UserMessage | AssistantMessage

_SessionAdapter: TypeAdapter[Session] = TypeAdapter(Session)
_TodosAdapter: TypeAdapter[list[Todo]] = TypeAdapter(list[Todo], config=LAZY)


@record
class InvalidRow:
    """A stored row that failed validation: where it is and what is wrong with it."""

    table: str
    id: str
    error: str

    def __str__(self) -> str:
        return f"{self.table} row {self.id} is invalid: {self.error}"


class InvalidRowError(StorageError):
    """A stored row failed validation."""

    def __init__(self, row: InvalidRow) -> None:
        super().__init__(str(row))
        self.row = row


OnInvalid = Callable[[InvalidRow], None]


def encode(model: BaseModel) -> str:
    """The JSON body stored for a model (unset optional fields left out)."""
    return model.model_dump_json(exclude_none=True)


def encode_todos(todos: list[Todo]) -> str:
    """The JSON body stored for a todo list."""
    return _TodosAdapter.dump_json(todos, exclude_none=True).decode()


def _summary(exc: ValidationError) -> str:
    errors = exc.errors()
    shown = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors[:3])
    return shown + (f" (+{len(errors) - 3} more)" if len(errors) > 3 else "")


def _decode(adapter: TypeAdapter[T], table: str, row_id: str, body: str) -> T:
    try:
        return adapter.validate_json(body)
    except ValidationError as exc:
        raise InvalidRowError(InvalidRow(table, row_id, _summary(exc))) from exc


def decode_session(row_id: str, body: str) -> Session:
    """A sessions row's body as a Session."""
    return _decode(_SessionAdapter, "sessions", row_id, body)


def decode_message(row_id: str, body: str) -> AnyMessage:
    """A messages row's body as a user or assistant message."""
    return _decode(MessageAdapter, "messages", row_id, body)


def decode_part(row_id: str, body: str) -> AnyPart:
    """A parts row's body as one of the twelve part types."""
    return _decode(PartAdapter, "parts", row_id, body)


def decode_todos(session_id: str, body: str) -> list[Todo]:
    """A todos row's body as a todo list."""
    return _decode(_TodosAdapter, "todos", session_id, body)


def checked(
    decoder: Callable[[str, str], T], row_id: str, body: str, on_invalid: OnInvalid | None
) -> T | None:
    """Decode a row; with ``on_invalid`` a bad row is reported and None returned, else it raises."""
    try:
        return decoder(row_id, body)
    except InvalidRowError as exc:
        if on_invalid is None:
            raise
        on_invalid(exc.row)
        return None
