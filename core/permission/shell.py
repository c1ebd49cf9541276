"""A small POSIX-shell reader that splits a command line into the simple commands it would run.

It is not a shell: it only has to find every command a line can execute, so that a harmless first
command (``ls && rm -rf x``) cannot hide the others. It understands pipelines, ``&&``/``||``/``;``/``&``,
newlines, subshells and groups, ``$( … )``, backticks, process substitution, quoting, redirections,
here-documents (their unquoted bodies may run substitutions) and the shell's reserved words.
Unbalanced input is read leniently: an unterminated quote or substitution runs to the end of the line.
"""

from __future__ import annotations

import re

from core.permission.command import Piece, Redirect, SimpleCommand, Word

_METACHARS = frozenset(" \t\n;&|<>()")
_SEPARATOR = re.compile(r"&&|\|\||;;&|;;|;&|\|&|;|\||&")
_REDIRECT = re.compile(r"(\d+|&)?(<<<|<<-|<<|>>|>&|<&|<>|>\||<|>)")
# Words that open or close a compound command: they are syntax, not a program to run.
_SKIPPED_WORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}"}
)
# Compound-command headers whose own words run nothing (their substitutions are still read).
_HEADERS = frozenset({"for", "select", "case", "function"})
# How deep subshells, groups and substitutions may nest before the line is refused as unreadable.
MAX_NESTING = 100
# How many words a line may have before it is refused as too long to check in good time (reading
# and checking a word costs ~30 µs: 2,000 words stay well under 100 ms).
MAX_WORDS = 2_000


# What may follow ``$`` to name a parameter: a name, a digit or one of the special parameters.
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
# A run of characters the reader takes as they are: read at once, so a word costs one piece, not
# one per character (the check stays linear and cheap on long lines).
_PLAIN_RUN = re.compile(r"[^ \t\n;&|<>()\\'\"$`]+")
_QUOTED_RUN = re.compile(r'[^\\$`"]+')
# Where a substitution may start in text where nothing else runs (a here-document's body).
_SUBSTITUTION_START = re.compile(r"\\|\$\(|`")


def _merged(pieces: list[Piece]) -> tuple[Piece, ...]:
    """Adjacent plain (or quoted) pieces as one; empty quoted pieces kept only for ``""`` words."""
    out: list[Piece] = []
    for piece in pieces:
        if piece.kind == "quoted" and not piece.text and len(pieces) > 1:
            continue
        if out and piece.kind in ("plain", "quoted") and out[-1].kind == piece.kind:
            out[-1] = Piece(out[-1].text + piece.text, piece.kind)
        else:
            out.append(piece)
    return tuple(out)


class TooDeep(ValueError):
    """A line nested deeper than the reader follows, or longer: its commands cannot all be listed."""


def split_commands(line: str) -> list[SimpleCommand]:
    """Every simple command of a shell command line, substitutions included (inner ones first).

    Raises ``TooDeep`` for a line nested more than ``MAX_NESTING`` levels or of more than
    ``MAX_WORDS`` words.
    """
    reader = _Reader(line)
    reader.read_list(None)
    return reader.commands


class _Builder:
    def __init__(self) -> None:
        self.start: int | None = None
        self.end = 0
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.discard = False

    def touch(self, start: int, end: int) -> None:
        if self.start is None:
            self.start = start
        self.end = end

    @property
    def empty(self) -> bool:
        return not self.words and not self.redirects


class _Reader:
    def __init__(self, text: str, depth: int = 0, words: list[int] | None = None) -> None:
        self.s = text
        self.i = 0
        self.depth = depth
        self.words = words if words is not None else [0]  # shared with the readers of its parts
        self.commands: list[SimpleCommand] = []
        self.heredocs: list[tuple[str, bool, bool]] = []  # delimiter, strip tabs, body expands

    # --- lists -----------------------------------------------------------------------------

    def read_list(self, terminator: str | None) -> None:
        if self.depth >= MAX_NESTING:
            raise TooDeep(f"the command nests subshells or substitutions more than {MAX_NESTING} deep")
        self.depth += 1
        try:
            self._read_list(terminator)
        finally:
            self.depth -= 1

    def _read_list(self, terminator: str | None) -> None:
        s = self.s
        cmd = _Builder()
        while True:
            self._skip_blanks()
            if self.i >= len(s):
                break
            c = s[self.i]
            if c == "#" and (self.i == 0 or s[self.i - 1] in " \t\n;&|()"):
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
                continue
            if c == "\n":
                cmd = self._finish(cmd)
                self.i += 1
                self._read_heredoc_bodies()
                continue
            if terminator is not None and c == terminator:
                self.i += 1
                break
            sep = _SEPARATOR.match(s, self.i) if c in ";&|" else None
            if sep is not None:
                cmd = self._finish(cmd)
                self.i = sep.end()
                continue
            if c == "(":
                if not cmd.empty and s.startswith("()", self.i):  # name() { …; }: a definition
                    cmd = _Builder()
                    self.i += 2
                    continue
                cmd = self._finish(cmd)
                self.i += 1
                self.read_list(")")
                continue
            if c == ")":  # stray closer (e.g. a case pattern): ignore it
                self.i += 1
                continue
            if self._read_redirect(cmd):
                continue
            start = self.i
            word = self._read_word()
            if cmd.empty and word.raw in _SKIPPED_WORDS:
                continue
            if cmd.empty and word.raw in _HEADERS:
                cmd.discard = True
            cmd.words.append(word)
            cmd.touch(start, self.i)
        self._finish(cmd)

    def _finish(self, cmd: _Builder) -> _Builder:
        if not cmd.empty and not cmd.discard and cmd.start is not None:
            text = self.s[cmd.start : cmd.end].strip()
            self.commands.append(SimpleCommand(text, cmd.words, cmd.redirects))
        return _Builder()

    def _skip_blanks(self) -> None:
        s = self.s
        while self.i < len(s):
            if s[self.i] in " \t":
                self.i += 1
            elif s.startswith("\\\n", self.i):
                self.i += 2
            else:
                return

    # --- redirections and here-documents ---------------------------------------------------

    def _read_redirect(self, cmd: _Builder) -> bool:
        s = self.s
        if s.startswith(("<(", ">("), self.i):
            return False  # process substitution: a word
        match = _REDIRECT.match(s, self.i)
        if match is None:
            return False
        start = self.i
        self.i = match.end()
        self._skip_blanks()
        if self.i >= len(s) or s[self.i] in "\n;&|()":
            cmd.touch(start, self.i)
            return True
        target = self._read_word()
        op = match.group(0)
        if match.group(2) in ("<<", "<<-"):
            quoted = any(q in target.raw for q in "'\"\\")
            self.heredocs.append((target.value, match.group(2) == "<<-", not quoted))
        else:
            cmd.redirects.append(Redirect(op, target))
        cmd.touch(start, self.i)
        return True

    def _read_heredoc_bodies(self) -> None:
        pending, self.heredocs = self.heredocs, []
        s = self.s
        for delimiter, strip_tabs, expands in pending:
            body_start = self.i
            while self.i < len(s):
                end = s.find("\n", self.i)
                end = len(s) if end < 0 else end
                line = s[self.i : end]
                self.i = min(end + 1, len(s))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
            if expands:
                self._scan_substitutions(s[body_start : self.i])

    def _scan_substitutions(self, text: str) -> None:
        """Read the commands of ``$( … )`` and backticks in text where nothing else runs."""
        sub = _Reader(text, self.depth, self.words)
        while sub.i < len(text):
            found = _SUBSTITUTION_START.search(text, sub.i)
            if found is None:
                break
            sub.i = found.start()
            if text[sub.i] == "\\":
                sub.i += 2
            else:
                sub._read_expansion()
        self.commands.extend(sub.commands)

    # --- words -----------------------------------------------------------------------------

    def _read_word(self) -> Word:
        self.words[0] += 1
        if self.words[0] > MAX_WORDS:
            raise TooDeep(f"the command has more than {MAX_WORDS:,} words, more than the checker reads")
        start = self.i
        pieces: list[Piece] = []
        s = self.s
        if s.startswith(("<(", ">("), self.i):
            self.i += 2
            self.read_list(")")
            raw = s[start : self.i]
            return Word(raw, raw, (Piece(raw, "process"),))
        while self.i < len(s) and s[self.i] not in _METACHARS:
            self._read_word_part(pieces)
        return Word(s[start : self.i], "".join(p.text for p in pieces), _merged(pieces))

    def _read_word_part(self, out: list[Piece]) -> None:
        """Read one piece of a word into ``out`` (substitutions stay as written)."""
        s = self.s
        c = s[self.i]
        start = self.i
        if c == "\\":
            self.i += 2
            if s[start + 1 : start + 2] != "\n":
                out.append(Piece(s[start + 1 : start + 2], "quoted"))
            return
        if c == "'":
            end = s.find("'", self.i + 1)
            end = len(s) if end < 0 else end
            self.i = end + 1
            out.append(Piece(s[start + 1 : end], "quoted"))
            return
        if c == '"':
            self._read_double_quoted(out)
            return
        if s.startswith("$'", self.i):  # ANSI-C quoting: escapes the checker does not decode
            end = self.i + 2
            while end < len(s) and s[end] != "'":
                end += 2 if s[end] == "\\" else 1
            self.i = min(end + 1, len(s))
            out.append(Piece(s[start : self.i], "expansion"))
            return
        if s.startswith('$"', self.i):  # locale translation: a double-quoted string
            self.i += 1
            self._read_double_quoted(out)
            return
        if c in "$`":
            out.append(self._read_expansion())
            return
        run = _PLAIN_RUN.match(s, self.i)
        self.i = run.end() if run is not None else self.i + 1
        out.append(Piece(s[start : self.i], "plain"))

    def _read_expansion(self) -> Piece:
        """``$…`` or a backtick substitution at ``self.i``; a lone ``$`` is plain text."""
        s = self.s
        start = self.i
        if s[start] == "`":
            end = self.i + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            inner = _Reader(s[self.i + 1 : min(end, len(s))].replace("\\`", "`"), self.depth + 1, self.words)
            inner.read_list(None)
            self.commands.extend(inner.commands)
            self.i = min(end + 1, len(s))
        elif s.startswith("$((", self.i):
            self._skip_balanced("(", ")", self.i + 1)
        elif s.startswith("$(", self.i):
            self.i += 2
            self.read_list(")")
        elif s.startswith("${", self.i):
            self._skip_balanced("{", "}", self.i + 1)
        else:
            match = _PARAMETER.match(s, self.i + 1)
            if match is None:
                self.i += 1
                return Piece("$", "plain")
            self.i = match.end()
        return Piece(s[start : self.i], "expansion")

    def _read_double_quoted(self, out: list[Piece]) -> None:
        s = self.s
        self.i += 1
        text: list[str] = []
        while self.i < len(s) and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                text.append(nxt if nxt in '$`"\\' else "" if nxt == "\n" else c + nxt)
                self.i += 2
            elif c in "$`":
                piece = self._read_expansion()
                if piece.kind == "plain":
                    text.append(piece.text)
                else:
                    out.append(Piece("".join(text), "quoted"))
                    text = []
                    out.append(Piece(piece.text, piece.kind, quoted=True))
            else:
                run = _QUOTED_RUN.match(s, self.i)
                end = run.end() if run is not None else self.i + 1
                text.append(s[self.i : end])
                self.i = end
        self.i += 1
        out.append(Piece("".join(text), "quoted"))

    def _skip_balanced(self, opener: str, closer: str, at: int) -> None:
        depth = 0
        s = self.s
        i = at
        while i < len(s):
            if s[i] == "\\":
                i += 2
                continue
            if s[i] == opener:
                depth += 1
            elif s[i] == closer:
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            i += 1
        self.i = min(i, len(s))
