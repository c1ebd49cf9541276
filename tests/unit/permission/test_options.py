"""Options read as getopt reads them: clusters, values, abbreviations, where options stop."""

from __future__ import annotations

from core.permission.command import Piece, Word
from core.permission.options import after, parse
from core.permission.shell import split_commands


def args(line: str) -> list[Word]:
    (cmd,) = split_commands(line)
    return cmd.words[1:]


def options(line: str, valued: set[str], **kw: object) -> list[tuple[str, str | None]]:
    parsed = parse(args(line), frozenset(valued), **kw)  # type: ignore[arg-type]
    return [(o.name, o.value.value if o.value else None) for o in parsed.options]


def test_a_cluster_ends_at_the_option_that_takes_a_value() -> None:
    assert options("sort -uo out in", {"-o"}) == [("-u", None), ("-o", "out")]
    assert options("sort -uoout in", {"-o"}) == [("-u", None), ("-o", "out")]
    assert options("sort -k2o in", {"-k", "-o"}) == [("-k", "2o")]  # -k takes the rest


def test_long_options_take_a_value_after_equals_or_the_next_word() -> None:
    assert options("sort --output=f in", {"--output"}) == [("--output", "f")]
    assert options("sort --output f in", {"--output"}) == [("--output", "f")]


def test_an_unambiguous_prefix_names_the_long_option() -> None:
    assert options("sort --out=f", {"--output"}) == [("--output", "f")]
    # Two options start with --co: the abbreviation stays as given.
    assert options("x --co=f", {"--compress", "--count"}) == [("--co", "f")]
    assert options("x --o=f", {"--output"}) == [("--output", "f")]  # one letter is a prefix too


def test_options_after_operands_count_unless_the_command_stops_at_its_first_operand() -> None:
    assert options("sort in -o out", {"-o"}) == [("-o", "out")]
    parsed = parse(args("nice rm -o x"), frozenset({"-n"}), permute=False)
    assert parsed.options == [] and parsed.stop == 0
    assert [w.value for w in parsed.operands] == ["rm", "-o", "x"]


def test_double_dash_ends_the_options_and_a_value_may_be_missing() -> None:
    parsed = parse(args("sudo -u bob -- rm -o"), frozenset({"-u"}), permute=False)
    assert [w.value for w in parsed.operands] == ["rm", "-o"] and parsed.stop == 3
    assert options("sort -o", {"-o"}) == [("-o", None)]


def test_negative_numbers_are_operands_unless_the_command_takes_them_as_options() -> None:
    assert parse(args("x -10 y"), frozenset()).operands[0].value == "-10"
    assert [o.name for o in parse(args("nice -10 rm"), frozenset(), flag_digits=True).options] == ["-1", "-0"]


def test_after_keeps_a_substitution_glued_to_an_option_whole() -> None:
    word = Word("-o$X", "-o$X", (Piece("-o", "plain"), Piece("$X", "expansion")))
    assert after(word, 2).pieces == (Piece("$X", "expansion"),)
    glued = Word("$X-o", "$X-o", (Piece("$X", "expansion"), Piece("-o", "plain")))
    assert after(glued, 2) is glued  # what the skipped part was is unknown
