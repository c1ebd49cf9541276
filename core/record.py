"""``@record`` and ``@struct``: the data classes of agentls, checked by the type checker.

A record reads like ``@dataclass(frozen=True)`` and the type checker treats it so (assigning to a
field is an error under ``mypy --strict``, which the test command runs); a struct reads like a
plain ``@dataclass``. At run time both are dataclasses (``dataclasses.fields``, ``replace``,
``asdict`` and ``__match_args__`` work) whose ``__init__``, ``__repr__``, ``__eq__`` and
``__hash__`` are four functions shared by all of them, driven by a small table of the class's
fields made once when the class is decorated.

Why not the methods ``dataclasses`` generates: it writes each of them as source text and compiles
it, for every class (``frozen=True`` adds two more guards). About 130 of these classes are made on
the way to `agentls run`'s first model request, and those compiles were the largest single cost of
importing agentls's own modules: ~1.3-1.9 M instructions per class against ~0.2 M for the table
(callgrind; importing the run's modules went from 1,363 to 1,183 M instructions). The shared
methods cost a little more per call instead (a loop over the fields: ~1.4 µs to make one against
~0.2 µs), which is nothing next to what these classes are used for; a record made in a hot loop
(a stream event per chunk) asks for the generated methods (``generated=True``).

What stays as with ``dataclass``: construction by position or keyword with defaults,
``default_factory``, ``kw_only`` (per class or per field, ``KW_ONLY``), ``init=False`` fields and
``__post_init__``; equality by the compared fields for the same class only; a record's hash of the
hashed fields (records are dict keys and set members), a struct is not hashable; the repr of the
shown fields (``...`` where a struct holds itself); ``eq=False`` meaning identity; slots. Not
enforced at run time: a record's immutability (the type checker's job). Not supported: ``InitVar``
(its argument is refused as an unexpected keyword).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_SPEC = "__record_spec__"


class _Spec:
    """What the shared methods need to know about one record class, computed once."""

    __slots__ = (
        "compared",
        "defaults",
        "factories",
        "hashed",
        "later",
        "name",
        "order",
        "positional",
        "post_init",
        "shown",
    )

    def __init__(self, cls: type) -> None:
        fields = dataclasses.fields(cls)
        self.name = cls.__qualname__
        init = [f for f in fields if f.init]
        # The parameters in the order of the __init__ dataclasses would make: positional ones
        # first, then the keyword-only ones.
        self.positional = tuple(f.name for f in init if not f.kw_only)
        self.order = self.positional + tuple(f.name for f in init if f.kw_only)
        self.defaults = {f.name: f.default for f in fields if f.default is not MISSING}
        self.factories = {f.name: f.default_factory for f in fields if f.default_factory is not MISSING}
        # Fields left out of __init__ still start with their default, as with dataclasses.
        self.later = tuple(f.name for f in fields if not f.init and self.has_default(f.name))
        self.post_init = hasattr(cls, "__post_init__")
        self.compared = tuple(f.name for f in fields if f.compare)
        self.hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        self.shown = tuple(f.name for f in fields if f.repr)

    def has_default(self, name: str) -> bool:
        return name in self.defaults or name in self.factories

    def value(self, name: str) -> Any:
        factory = self.factories.get(name)
        return factory() if factory is not None else self.defaults[name]


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    spec: _Spec = getattr(type(self), _SPEC)
    given = len(args)
    if given > len(spec.positional):
        raise TypeError(
            f"{spec.name}() takes {len(spec.positional)} positional arguments but {given} were given"
        )
    for name, value in zip(spec.positional, args, strict=False):
        setattr(self, name, value)
    for name, value in kwargs.items():
        if name not in spec.order:
            raise TypeError(f"{spec.name}() got an unexpected keyword argument {name!r}")
        if spec.order.index(name) < given:
            raise TypeError(f"{spec.name}() got multiple values for argument {name!r}")
        setattr(self, name, value)
    if given + len(kwargs) < len(spec.order):
        for name in spec.order[given:]:
            if name in kwargs:
                continue
            if not spec.has_default(name):
                raise TypeError(f"{spec.name}() missing required argument: {name!r}")
            setattr(self, name, spec.value(name))
    for name in spec.later:
        setattr(self, name, spec.value(name))
    if spec.post_init:
        self.__post_init__()


@reprlib.recursive_repr()  # a struct that holds itself shows "..." there, as a dataclass does
def _repr(self: Any) -> str:
    spec: _Spec = getattr(type(self), _SPEC)
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in spec.shown)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names: tuple[str, ...] = getattr(type(self), _SPEC).compared
    # As tuples, as dataclasses compares them: a field that is the same object counts as equal
    # before its __eq__ is asked (a NaN, say).
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _hash(self: Any) -> int:
    names: tuple[str, ...] = getattr(type(self), _SPEC).hashed
    return hash(tuple(getattr(self, n) for n in names))


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(
    *,
    eq: bool = True,
    repr: bool = True,
    slots: bool = False,
    kw_only: bool = False,
    generated: bool = False,
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
    generated: bool = False,
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` an immutable record (see the module's docstring); options as ``dataclass``'s.

    ``generated``: the methods ``dataclasses`` generates instead of the shared ones, for a record
    made in a hot loop (a stream event per chunk): ~0.2 µs to make one against ~1.4 µs, for
    ~1.9 M more instructions once, when the class is made.
    """

    def wrap(target: type[T]) -> type[T]:
        if generated:
            return dataclass(target, eq=eq, unsafe_hash=eq, repr=repr, slots=slots, kw_only=kw_only)
        # dataclasses reads the fields (defaults, factories, kw_only, ClassVar) and makes the
        # slots; it generates nothing that is compiled.
        made = dataclass(target, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only)
        return _shared(made, repr=repr, eq=eq)

    return wrap if cls is None else wrap(cls)


@overload
def struct(cls: type[T], /) -> type[T]: ...


@overload
def struct(*, slots: bool = False, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(eq_default=True, field_specifiers=(field,))
def struct(
    cls: type[T] | None = None, /, *, slots: bool = False, kw_only: bool = False
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` a mutable data class, as ``@dataclass`` does (equal by fields, so not hashable),
    with the shared methods of records."""

    def wrap(target: type[T]) -> type[T]:
        return _shared(
            dataclass(target, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only), hashed=False
        )

    return wrap if cls is None else wrap(cls)


def _shared(made: type[T], *, repr: bool = True, eq: bool = True, hashed: bool = True) -> type[T]:
    """Give a class made by ``dataclass(init=False, repr=False, eq=False)`` the shared methods."""
    methods: dict[str, object] = {_SPEC: _Spec(made), "__init__": _init}
    if repr:
        methods["__repr__"] = _repr
    if eq:
        # Equal by fields: hashed by them too (a record), or not hashable (what @dataclass makes).
        methods |= {"__eq__": _eq, "__hash__": _hash if hashed else None}
    for name, method in methods.items():
        setattr(made, name, method)
    return made
