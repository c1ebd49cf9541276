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
``__post_init__`` (a record's sets a field with ``object.__setattr__``, as a frozen dataclass's
does); equality by the compared fields for the same class only; a record's hash of the hashed
fields (records are dict keys and set members), a struct is not hashable; the repr of the shown
fields (``...`` where a struct holds itself); ``eq=False`` meaning identity; slots. A record is
frozen at run time as ``dataclass(frozen=True)`` makes it: assigning or deleting an attribute raises
``dataclasses.FrozenInstanceError`` (so its hash never changes under a dict that holds it), a
record cannot inherit from a struct nor a struct from a record. ``inspect.signature`` of a class
shows its fields as ``__init__`` takes them (made when first asked), and ``__dataclass_params__``
says what the class is (``frozen``, ``eq``, ``kw_only``, ``slots``…), as ``dataclass`` sets it. Not
supported: ``InitVar`` (its argument is refused as an unexpected keyword).

Decided by measurement (2026-12-07, the commit that made records frozen has the figures): a plain
``@dataclass(frozen=True)`` class cost ~0.5 ms more to make than a record, ~80 ms of CPU for the
~160 classes before ``agentls run``'s first model request; the guards above cost nothing when a
class is made.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, field
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
        "signature",
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
        self.signature: inspect.Signature | None = None  # made when first asked

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
    put = object.__setattr__  # past a record's guard, as a frozen dataclass's __init__ goes
    for name, value in zip(spec.positional, args, strict=False):
        put(self, name, value)
    for name, value in kwargs.items():
        if name not in spec.order:
            raise TypeError(f"{spec.name}() got an unexpected keyword argument {name!r}")
        if spec.order.index(name) < given:
            raise TypeError(f"{spec.name}() got multiple values for argument {name!r}")
        put(self, name, value)
    if given + len(kwargs) < len(spec.order):
        for name in spec.order[given:]:
            if name in kwargs:
                continue
            if not spec.has_default(name):
                raise TypeError(f"{spec.name}() missing required argument: {name!r}")
            put(self, name, spec.value(name))
    for name in spec.later:
        put(self, name, spec.value(name))
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


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _frozen_setstate(self: Any, state: object) -> None:
    # What pickle and copy hand back: the __dict__, or (__dict__, slots) for a class with slots;
    # set past the guard, as dataclasses does for a frozen class with slots.
    for part in state if isinstance(state, tuple) else (state,):
        for name, value in (part or {}).items():
            object.__setattr__(self, name, value)


class _Factory:
    """What a signature shows as the default of a field made by a factory, as dataclasses does."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


class _SignatureOf:
    """``cls.__signature__``: the parameters the shared ``__init__`` takes, made when first asked
    (``inspect.signature`` asks; nothing does at start-up)."""

    def __get__(self, instance: object, owner: type) -> inspect.Signature:
        spec: _Spec = getattr(owner, _SPEC)
        if spec.signature is None:
            fields = {f.name: f for f in dataclasses.fields(owner)}
            parameters = [
                inspect.Parameter(
                    name,
                    inspect.Parameter.KEYWORD_ONLY
                    if fields[name].kw_only
                    else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    default=_FACTORY
                    if name in spec.factories
                    else spec.defaults.get(name, inspect.Parameter.empty),
                    annotation=fields[name].type,
                )
                for name in spec.order
            ]
            spec.signature = inspect.Signature(parameters, return_annotation=None)
        return spec.signature


_SIGNATURE = _SignatureOf()


class Params:
    """A record's or a struct's ``__dataclass_params__``: the options it was made with, under the
    names ``dataclass`` gives them (its methods are the shared ones, so its ``init``, ``repr`` and
    ``eq`` are what the class does, not what ``dataclass`` was asked to generate)."""

    __slots__ = (
        "eq",
        "frozen",
        "init",
        "kw_only",
        "match_args",
        "order",
        "repr",
        "slots",
        "unsafe_hash",
        "weakref_slot",
    )

    def __init__(self, *, frozen: bool, eq: bool, repr: bool, kw_only: bool, slots: bool) -> None:
        self.init, self.repr, self.eq, self.frozen = True, repr, eq, frozen
        self.order = self.unsafe_hash = self.weakref_slot = False
        self.match_args, self.kw_only, self.slots = True, kw_only, slots

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in sorted(self.__slots__))
        return f"Params({shown})"


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
            return dataclass(target, frozen=True, eq=eq, repr=repr, slots=slots, kw_only=kw_only)
        # dataclasses reads the fields (defaults, factories, kw_only, ClassVar) and makes the
        # slots; it generates nothing that is compiled, but for a record inheriting a record's
        # fields, which dataclasses lets inherit only from a class it made frozen.
        frozen_base = _bases_frozen(target, frozen=True)
        made = dataclass(
            target, init=False, repr=False, eq=False, frozen=frozen_base, slots=slots, kw_only=kw_only
        )
        return _shared(made, repr=repr, eq=eq, frozen=True, kw_only=kw_only, slots=slots)

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
        made = dataclass(target, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only)
        return _shared(made, frozen=False, kw_only=kw_only, slots=slots)

    return wrap if cls is None else wrap(cls)


def _bases_frozen(target: type, *, frozen: bool) -> bool:
    """Whether ``target`` inherits fields from a data class, which must be frozen as it is (as
    dataclasses requires of the classes it makes)."""
    bases = [getattr(base, "__dataclass_params__", None) for base in target.__mro__[1:]]
    made = [params.frozen for params in bases if params is not None]
    if made and frozen and not all(made):
        raise TypeError(f"record {target.__qualname__} cannot inherit from a data class that is not frozen")
    return bool(made)


def _shared(
    made: type[T], *, frozen: bool, repr: bool = True, eq: bool = True, kw_only: bool, slots: bool
) -> type[T]:
    """Give a class made by ``dataclass(init=False, repr=False, eq=False)`` the shared methods."""
    params = Params(frozen=frozen, eq=eq, repr=repr, kw_only=kw_only, slots=slots)
    methods: dict[str, object] = {
        _SPEC: _Spec(made),
        "__init__": _init,
        "__signature__": _SIGNATURE,
        "__dataclass_params__": params,
    }
    if frozen:
        methods |= {
            "__setattr__": _frozen_setattr,
            "__delattr__": _frozen_delattr,
            "__setstate__": _frozen_setstate,
        }
    if repr:
        methods["__repr__"] = _repr
    if eq:
        # Equal by fields: hashed by them too (a record), or not hashable (what @dataclass makes).
        methods |= {"__eq__": _eq, "__hash__": _hash if frozen else None}
    for name, method in methods.items():
        setattr(made, name, method)
    return made
