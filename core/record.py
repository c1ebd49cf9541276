"""``@record``: the immutable value classes of agentls, checked by the type checker.

A record reads like ``@dataclass(frozen=True)`` and the type checker treats it so (assigning to a
field is an error under ``mypy --strict``, which the test command runs), but at run time it is a
plain dataclass with a field-based ``__hash__``. Why: ``frozen=True`` makes ``dataclasses``
generate and compile two more methods per class (``__setattr__``/``__delattr__`` guards) and routes
every field of every new instance through ``object.__setattr__``. With ~100 records imported on
the way to `agentls run`'s first model request, compiling those guards was ~8 % of the instructions
of importing its modules (callgrind), for a check the type checker already makes.

What stays as with ``frozen=True``: equality and hashing by fields (records are dict keys and set
members), ``dataclasses.replace``, keyword-only and slotted variants, and ``eq=False`` meaning
identity hashing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(
    *, eq: bool = True, repr: bool = True, slots: bool = False, kw_only: bool = False
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
def record(
    cls: type[T] | None = None,
    /,
    *,
    eq: bool = True,
    repr: bool = True,  # the name dataclasses gives this option
    slots: bool = False,
    kw_only: bool = False,
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` an immutable record (see the module's docstring); options as ``dataclass``'s."""

    def wrap(target: type[T]) -> type[T]:
        return dataclass(target, eq=eq, unsafe_hash=eq, repr=repr, slots=slots, kw_only=kw_only)

    return wrap if cls is None else wrap(cls)
