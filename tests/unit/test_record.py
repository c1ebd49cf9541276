"""``@record`` behaves as ``@dataclass(frozen=True)`` does, frozen at run time too: each case builds
the same class both ways and compares what a caller sees (fields, repr, equality, hash, signature,
``__dataclass_params__``, assignment)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, cast

import pytest
from pydantic import BaseModel

from core.events import Event, PartDelta
from core.record import record, struct


def both(**options: Any) -> Callable[[type], tuple[type, type]]:
    """Decorate copies of a class body with ``@dataclass(frozen=True, ...)`` and ``@record(...)``."""

    def make(body: type) -> tuple[type, type]:
        reference: type = dataclass(frozen=True, **options)(_copy(body))
        ours: type = record(**options)(_copy(body))
        return reference, ours

    return make


def _copy(body: type) -> type:
    namespace = {k: v for k, v in vars(body).items() if k not in ("__dict__", "__weakref__")}
    return type(body.__name__, body.__bases__, namespace)


# Class bodies, decorated both ways by ``both``.
class Plain:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


class Hidden:
    a: int
    secret: str = field(default="s", repr=False)
    note: str = field(default="n", compare=False)


class Later:
    a: int
    k: int = field(default=1, kw_only=True)
    tag: str = field(default="t", init=False)
    kind: ClassVar[str] = "class-level"


class Sentinel:
    a: int
    _: KW_ONLY
    b: int
    c: int = 3


CASES: list[tuple[str, type, dict[str, Any], list[tuple[tuple[Any, ...], dict[str, Any]]]]] = [
    ("plain", Plain, {}, [((1,), {}), ((1, "x"), {}), ((), {"a": 1, "c": [2]}), ((1, "x", [3]), {})]),
    ("hidden", Hidden, {}, [((1,), {}), ((1, "t", "m"), {}), ((1,), {"note": "other"})]),
    ("later", Later, {}, [((1,), {}), ((1,), {"k": 5})]),
    ("sentinel", Sentinel, {}, [((1,), {"b": 2}), ((1,), {"b": 2, "c": 4})]),
    ("kw_only", Plain, {"kw_only": True}, [((), {"a": 1}), ((), {"a": 1, "b": "y"})]),
    ("slots", Plain, {"slots": True}, [((1,), {}), ((2, "z", [1]), {})]),
    ("no repr", Plain, {"repr": False}, [((1,), {})]),
]
BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),  # a required field missing
    ((1, "x", [], 9), {}),  # too many positional
    ((1,), {"a": 2}),  # twice
    ((1,), {"nope": 2}),  # unknown
]


def _state(obj: object) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(cast(Any, obj))}


@pytest.mark.parametrize(("name", "body", "options", "calls"), CASES, ids=[c[0] for c in CASES])
def test_a_record_is_what_a_frozen_dataclass_is(
    name: str, body: type, options: dict[str, Any], calls: list[tuple[tuple[Any, ...], dict[str, Any]]]
) -> None:
    reference, ours = both(**options)(body)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(reference)]
    assert vars(ours)["__match_args__"] == vars(reference)["__match_args__"]
    made = []
    for args, kwargs in calls:
        theirs, mine = reference(*args, **kwargs), ours(*args, **kwargs)
        assert _state(mine) == _state(theirs)
        if options.get("repr", True):
            assert repr(mine) == repr(theirs)
        else:
            assert repr(mine).startswith("<") and " object at " in repr(mine)
        assert mine == ours(*args, **kwargs)
        assert mine != theirs  # another class, as between two dataclasses
        if all(isinstance(v, (int, str)) for v in _state(mine).values()):
            assert hash(mine) == hash(ours(*args, **kwargs))
            assert (hash(mine) == hash(theirs)) == (hash(reference(*args, **kwargs)) == hash(theirs))
        assert _state(dataclasses.replace(mine, a=7)) == _state(dataclasses.replace(theirs, a=7))
        assert type(dataclasses.replace(mine, a=7)) is ours
        assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
        made.append(mine)
    assert str(inspect.signature(ours)) == str(inspect.signature(reference))
    for option in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(ours.__dataclass_params__, option) == getattr(reference.__dataclass_params__, option)
    for target in (made[0], reference(*calls[0][0], **calls[0][1])):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
            target.a = 9
        with pytest.raises(dataclasses.FrozenInstanceError):
            del target.a
    assert _state(copy.copy(made[0])) == _state(made[0])
    if options.get("slots"):
        assert not hasattr(made[0], "__dict__")
    if body is Plain:  # a factory's value is fresh for every instance
        first, second = ours(a=1), ours(a=1)
        assert first.c == [] and first.c is not second.c


@pytest.mark.parametrize(("args", "kw"), BAD_CALLS)
def test_a_bad_call_is_refused_as_a_dataclass_refuses_it(args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    reference, ours = both()(Plain)
    with pytest.raises(TypeError):
        reference(*args, **kw)
    with pytest.raises(TypeError) as refused:
        ours(*args, **kw)
    assert "Plain()" in str(refused.value)


def test_compare_false_and_hash_leave_a_field_out() -> None:
    _, ours = both()(Hidden)
    assert ours(1, note="x") == ours(1, note="y")
    assert hash(ours(1, note="x")) == hash(ours(1, note="y"))
    assert ours(1, "s") != ours(1, "t")
    assert "secret" not in repr(ours(1))


def test_eq_false_means_identity() -> None:
    @record(eq=False)
    class Handle:
        a: int

    one = Handle(1)
    assert one != Handle(1) and one == one
    assert len({one, Handle(1)}) == 2


def test_a_record_in_a_dict_stays_findable() -> None:
    made = Point(1, 2)
    held, members = {made: "here"}, {made}
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.x = 5  # the assignment that once changed its hash and lost it
    with pytest.raises(dataclasses.FrozenInstanceError):
        object.__getattribute__(made, "__setattr__")("y", 5)
    assert held[made] == "here" and made in members and held[Point(1, 2)] == "here"


def test_a_record_and_a_struct_do_not_inherit_from_each_other() -> None:
    @struct
    class Loose:
        a: int

    @record
    class Fixed:
        a: int

    with pytest.raises(TypeError, match="not frozen"):
        record(type("FromStruct", (Loose,), {"__annotations__": {"b": "int"}, "b": 0}))
    with pytest.raises(TypeError, match="non-frozen"):
        struct(type("FromRecord", (Fixed,), {"__annotations__": {"b": "int"}, "b": 0}))
    assert Loose.__dataclass_params__.frozen is False and Fixed.__dataclass_params__.frozen is True

    @record(kw_only=True)
    class Child(Fixed):
        b: int = 0

    assert str(inspect.signature(Child)) == "(a: 'int', *, b: 'int' = 0) -> None"
    assert Child.__dataclass_params__.kw_only is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        Child(1).b = 2


def test_a_record_with_slots_pickles_and_copies() -> None:
    made = Slotted(1, "x")
    assert pickle.loads(pickle.dumps(made)) == made
    assert copy.deepcopy(made) == made and copy.copy(made) == made


@record(slots=True)
class Slotted:
    a: int
    b: str = "b"


def test_an_event_is_a_frozen_record() -> None:
    event = PartDelta(sessionID="ses_1", messageID="msg_1", partID="prt_1", field="text", delta="hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.delta = "changed"  # type: ignore[misc]  # what mypy refuses, refused at run time too
    assert "delta: 'str'" in str(inspect.signature(PartDelta))
    kinds = Event.REGISTRY.values()
    assert [k.TYPE for k in kinds if not k.__dataclass_params__.frozen] == []  # type: ignore[attr-defined]
    shared = [k for k in kinds if k.__init__.__code__.co_filename == _SHARED_FILE]
    assert shared and all(str(inspect.signature(k)).startswith("(*,") for k in shared)


def test_post_init_runs_after_the_fields_are_set() -> None:
    seen: list[int] = []

    @record
    class Checked:
        a: int
        b: int = 2

        def __post_init__(self) -> None:
            seen.append(self.a + self.b)

    Checked(1)
    Checked(1, b=5)
    assert seen == [3, 6]


def test_a_record_extends_a_record_and_a_plain_subclass_inherits_it() -> None:
    @record
    class Base:
        a: int
        b: str = "b"

    @record
    class Child(Base):
        c: int = 0

    class Loose(Base):
        pass

    assert Child(1, "x", 3) == Child(a=1, b="x", c=3)
    assert (
        repr(Child(1))
        == "test_a_record_extends_a_record_and_a_plain_subclass_inherits_it.<locals>.Child(a=1, b='b', c=0)"
    )
    assert Child(1) != Base(1)
    assert Loose(1).b == "b" and Loose(1) == Loose(1) and Loose(1) != Base(1)


def test_a_class_variable_is_no_field() -> None:
    _, ours = both()(Later)
    assert [f.name for f in dataclasses.fields(ours)] == ["a", "k", "tag"]
    assert vars(ours)["kind"] == "class-level"
    assert ours(1).tag == "t"
    with pytest.raises(TypeError):
        ours(1, 2)  # k is keyword-only


def test_records_match_pickle_and_go_inside_pydantic_models() -> None:
    made = Point(1, 2)
    match made:
        case Point(x, y):
            assert (x, y) == (1, 2)
    assert pickle.loads(pickle.dumps(made)) == made

    class Holder(BaseModel):
        point: Point

    held = Holder.model_validate({"point": {"x": 3, "y": 4}})
    assert held.point == Point(3, 4)
    assert Holder(point=Point(5, 6)).model_dump() == {"point": {"x": 5, "y": 6}}


@record
class Point:
    x: int
    y: int


def test_a_generated_record_has_the_methods_dataclasses_makes() -> None:
    @record(slots=True, generated=True)
    class Delta:
        id: str
        text: str = ""

    assert Delta.__init__.__code__.co_filename != _SHARED_FILE
    assert Delta("a", "b") == Delta(id="a", text="b") and hash(Delta("a")) == hash(Delta("a"))
    assert repr(Delta("a")).endswith("Delta(id='a', text='')")
    assert Point.__init__.__code__.co_filename == _SHARED_FILE


_SHARED_FILE = record.__code__.co_filename


def test_a_struct_is_what_a_dataclass_is() -> None:
    for options in ({}, {"slots": True}, {"kw_only": True}):
        reference: type = dataclass(**options)(_copy(Plain))
        ours: type = struct(**options)(_copy(Plain))
        theirs, mine = reference(a=1), ours(a=1)
        assert _state(mine) == _state(theirs) and repr(mine) == repr(theirs)
        mine.b = "changed"
        assert mine.b == "changed" and mine != ours(a=1) and mine == ours(a=1, b="changed")
        assert ours.__hash__ is None and reference.__hash__ is None
        with pytest.raises(TypeError):
            hash(mine)


class Reading:
    value: float


def test_a_struct_that_holds_itself_and_a_nan_field_behave_as_with_dataclasses() -> None:
    @struct
    class Node:
        name: str
        parent: object = None

    @dataclass
    class Reference:
        name: str
        parent: object = None

    mine, theirs = Node("a"), Reference("a")
    mine.parent, theirs.parent = mine, theirs
    assert repr(mine).endswith("Node(name='a', parent=...)")
    assert repr(theirs).endswith("Reference(name='a', parent=...)")
    # The same NaN object in both: equal by identity, as tuples compare (NaN != NaN otherwise).
    nan = float("nan")
    reference, ours = both()(Reading)
    assert reference(nan) == reference(nan)
    assert ours(nan) == ours(nan)
    assert ours(nan) != ours(float("nan"))
