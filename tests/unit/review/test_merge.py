"""The three-way undo of one hunk, on the cases where a naive undo loses the user's work."""

from __future__ import annotations

import random

import pytest

from core.review.merge import (
    Conflict,
    LineHunk,
    hunks_between,
    split_lines,
    undo_hunk,
    undo_hunks,
    undo_in_place,
)


def lines(text: str) -> list[bytes]:
    return split_lines(text.encode())


def only_hunk(before: str, after: str) -> LineHunk:
    (hunk,) = hunks_between(lines(before), lines(after))
    return hunk


def undo(now: str, agent: str, hunk: LineHunk) -> str | Conflict:
    result = undo_hunk(lines(now), lines(agent), hunk)
    return result if isinstance(result, Conflict) else b"".join(result).decode()


BEFORE = "a\nb\nc\nd\ne\n"
AGENT = "a\nb\nX\nY\nd\ne\n"  # c -> X, Y


def test_split_lines_round_trips_crlf_and_a_missing_final_newline() -> None:
    for text in ["", "a", "a\n", "a\r\nb\r\n", "a\nb", "\n\n"]:
        assert b"".join(split_lines(text.encode())) == text.encode()
    assert split_lines(b"a\r\nb") == [b"a\r\n", b"b"]


def test_undo_with_no_user_edits_restores_the_before_text() -> None:
    assert undo(AGENT, AGENT, only_hunk(BEFORE, AGENT)) == BEFORE


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        ("U\na\nb\nX\nY\nd\ne\n", "U\na\nb\nc\nd\ne\n"),  # typed at the top of the file
        ("a\nb\nX\nY\nd\ne\nU\n", "a\nb\nc\nd\ne\nU\n"),  # typed at the end
        ("a\nb\nU\nX\nY\nd\ne\n", "a\nb\nU\nc\nd\ne\n"),  # typed right above the hunk
        ("a\nb\nX\nY\nU\nd\ne\n", "a\nb\nc\nU\nd\ne\n"),  # typed right below the hunk
        ("a\nB!\nX\nY\nd\ne\n", "a\nB!\nc\nd\ne\n"),  # changed the line above
    ],
)
def test_undo_keeps_what_the_user_typed_around_the_hunk(now: str, expected: str) -> None:
    assert undo(now, AGENT, only_hunk(BEFORE, AGENT)) == expected


@pytest.mark.parametrize(
    ("now", "reason"),
    [
        ("a\nb\nX!\nY\nd\ne\n", "you changed lines the agent wrote"),
        ("a\nb\nY\nd\ne\n", "you changed lines the agent wrote"),  # deleted one of them
        ("a\nb\nX\nU\nY\nd\ne\n", "you added lines inside lines the agent replaced"),
    ],
)
def test_an_overlapping_user_edit_is_a_conflict_with_both_sides(now: str, reason: str) -> None:
    result = undo(now, AGENT, only_hunk(BEFORE, AGENT))
    assert isinstance(result, Conflict)
    assert result.reason == reason
    assert result.agent == (b"X\n", b"Y\n")
    assert b"".join(result.current).decode() in now


def test_lines_typed_inside_an_added_block_survive_its_undo() -> None:
    before, agent = "a\nb\n", "a\nX\nY\nZ\nb\n"
    assert undo("a\nX\nmine\nY\nZ\nb\n", agent, only_hunk(before, agent)) == "a\nmine\nb\n"


def test_typing_where_the_agent_deleted_lines_is_a_conflict() -> None:
    before, agent = "a\nb\nc\n", "a\nc\n"
    result = undo("a\nmine\nc\n", agent, only_hunk(before, agent))
    assert isinstance(result, Conflict)
    assert result.reason == "you added lines where the agent removed some"
    assert undo("top\na\nc\n", agent, only_hunk(before, agent)) == "top\na\nb\nc\n"


def test_hunks_at_the_start_and_at_the_end_of_the_file() -> None:
    before, agent = "a\nb\nc\n", "A\nb\nC\n"
    first, last = hunks_between(lines(before), lines(agent))
    assert undo(agent, agent, first) == "a\nb\nC\n"
    assert undo(agent, agent, last) == "A\nb\nc\n"
    appended = only_hunk("a\n", "a\nb\n")
    assert undo("a\nb\n", "a\nb\n", appended) == "a\n"


def test_two_adjacent_hunks_are_undone_one_at_a_time() -> None:
    before, agent = "a\nb\nc\n", "A\nb\nC\n"
    first, last = hunks_between(lines(before), lines(agent))
    step = undo(agent, agent, last)
    assert step == "A\nb\nc\n"
    assert undo(step, agent, first) == before


def test_no_trailing_newline_and_crlf_come_back_byte_for_byte() -> None:
    before, agent = "a\r\nb", "a\r\nb\r\nnew\r\n"
    assert undo(agent, agent, only_hunk(before, agent)) == before
    before, agent = "x\ny", "x\nY"
    assert undo(agent, agent, only_hunk(before, agent)) == before


def test_a_hunk_the_agent_version_does_not_hold_is_a_conflict() -> None:
    hunk = only_hunk(BEFORE, AGENT)
    result = undo(BEFORE, BEFORE, hunk)
    assert isinstance(result, Conflict)


def _edited(rng: random.Random, text: list[bytes], edits: int, tag: str) -> list[bytes]:
    """``text`` with a few random line replacements, insertions and deletions."""
    out = list(text)
    for n in range(edits):
        at = rng.randrange(len(out) + 1)
        action = rng.choice(["replace", "insert", "delete"]) if out else "insert"
        if action == "insert" or at == len(out):
            out[at:at] = [f"{tag}{n}+{k}\n".encode() for k in range(rng.randint(1, 3))]
        elif action == "replace":
            out[at] = f"{tag}{n}\n".encode()
        else:
            del out[at]
    return out


@pytest.mark.parametrize("seed", range(300))
def test_undoing_a_steps_hunks_together_equals_undoing_them_one_at_a_time(seed: int) -> None:
    rng = random.Random(seed)
    before = [f"line {n}\n".encode() for n in range(rng.randint(0, 40))]
    agent = _edited(rng, before, rng.randint(1, 8), "agent")
    now = _edited(rng, agent, rng.randint(0, 4), "user")
    hunks = hunks_between(before, agent)
    chosen = rng.sample(hunks, rng.randint(1, len(hunks))) if hunks else []
    one_by_one: list[bytes] | Conflict = now
    for hunk in chosen:
        one_by_one = undo_hunk(one_by_one, agent, hunk)
        if isinstance(one_by_one, Conflict):
            break
    together, conflicts = undo_hunks(now, agent, chosen)
    if not isinstance(one_by_one, Conflict):  # every hunk could be undone one at a time
        assert conflicts == {}
        assert together == one_by_one
    for index, conflict in conflicts.items():  # a hunk that clashes in the batch clashes alone
        assert isinstance(undo_hunk(now, agent, chosen[index]), Conflict), conflict.reason


def test_a_clashing_hunk_stays_and_the_others_of_its_step_are_undone() -> None:
    before, agent = "a\nb\nc\nd\ne\n", "A\nb\nC\nd\nE\n"
    hunks = hunks_between(lines(before), lines(agent))
    now = "A\nb\nmine\nd\nE\n"  # the user rewrote the agent's C
    result, conflicts = undo_hunks(lines(now), lines(agent), hunks)
    assert b"".join(result).decode() == "a\nb\nmine\nd\ne\n"
    assert list(conflicts) == [1]
    assert conflicts[1].reason == "you changed lines the agent wrote"
    assert conflicts[1].current == (b"mine\n",)


def test_undo_in_place_finds_the_edited_lines_where_they_moved_and_refuses_a_guess() -> None:
    hunk = only_hunk("a\nb\nc\n", "a\nB\nc\n")
    back = undo_in_place(lines("a\nB\nc\n"), hunk)
    assert not isinstance(back, Conflict) and b"".join(back) == b"a\nb\nc\n"
    moved = undo_in_place(lines("new\na\nB\nc\n"), hunk)  # a line added above since
    assert not isinstance(moved, Conflict) and b"".join(moved) == b"new\na\nb\nc\n"
    changed = undo_in_place(lines("a\nBee\nc\n"), hunk)
    assert isinstance(changed, Conflict) and changed.reason == "you changed the edited lines"
    twice = undo_in_place(lines("x\ny\nB\nB\n"), hunk)  # moved, and no longer one place to put it back
    assert isinstance(twice, Conflict) and twice.reason == "the edited lines occur more than once"
    removed = undo_in_place(lines("a\nc\n"), only_hunk("a\nb\nc\n", "a\nc\n"))
    assert isinstance(removed, Conflict)
