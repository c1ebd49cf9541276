"""What a bash command line is allowed to do, form by form, under four rule sets.

Each row is a command and the decision (the strictest of all the requests it makes) under:
  D   the built-in defaults,
  BE  ``{"bash": "allow", "edit": "ask"}`` — every command allowed, edits asked,
  RA  ``{"bash": "allow", "edit": "allow", "read": "allow"}`` — read and edit rules allow everything,
  ED  ``{"bash": "allow", "edit": "deny"}``.
A word whose files cannot be known before the command runs asks under all of them.
``{out}`` is a folder outside the project; the project holds ``hello.py``, ``.env``,
``.env.example``, ``sub/prod.env`` and ``sub/a.txt``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.permission.bash import bash_requests
from core.permission.rules import decide, defaults, from_config

CONFIGS: dict[str, Any] = {
    "D": None,
    "BE": {"bash": "allow", "edit": "ask"},
    "RA": {"bash": "allow", "edit": "allow", "read": "allow"},
    "ED": {"bash": "allow", "edit": "deny"},
}

UNKNOWN = ("ask", "ask", "ask", "ask")
OUTSIDE = ("ask", "ask", "ask", "ask")
ALLOW = ("allow", "allow", "allow", "allow")
EDIT = ("ask", "ask", "allow", "deny")  # a command that writes a project file
EDIT_RO = ("ask", "ask", "allow", "deny")
SECRET = ("ask", "ask", "allow", "ask")  # reads .env
RUNS = ("ask", "allow", "allow", "allow")  # not read-only, touches nothing guarded

ROWS: list[tuple[str, tuple[str, str, str, str]]] = [
    # --- the examples of issue 23 ---------------------------------------------------------
    ("echo x > $OUT/f", UNKNOWN),
    ("cat $OUT/secret", UNKNOWN),
    ("cat ${OUT}/secret", UNKNOWN),
    ('D={out}; cat "$D/secret"', UNKNOWN),
    ("cat $(echo {out})/secret", UNKNOWN),
    ("cat `echo {out}`/secret", UNKNOWN),
    ("cat $(pwd)/../outside/secret", UNKNOWN),
    ('echo ok > "$PWD/x"', EDIT),
    ("echo ok > ${PWD}/x", EDIT),
    ("cat ./.e*v", UNKNOWN),
    ('cat "$PWD/.env"', SECRET),
    ("cat $(echo .env)", UNKNOWN),
    ("cat .en?", UNKNOWN),
    ("cat .[e]nv", UNKNOWN),
    # --- what resolves statically ----------------------------------------------------------
    ('cat "$PWD/hello.py"', ALLOW),
    ("PWD={out}; cat $PWD/secret", UNKNOWN),  # the line sets the variable it then reads
    ("export HOME={out}; cat ~/secret", UNKNOWN),
    ("cd sub; read PWD < a.txt; cat $PWD/x", UNKNOWN),
    ('echo ${PWD:=x} > "$PWD/y"', UNKNOWN),
    ("IFS=/; cat $PWD/hello.py", UNKNOWN),
    ("cat ${PWD}/../outside/secret", OUTSIDE),
    ("cat ~/notes.txt", OUTSIDE),
    ("cat $HOME/notes.txt", OUTSIDE),
    ('cat "${HOME}/notes.txt"', OUTSIDE),
    ("cat /proc/self/cwd/.env", SECRET),
    ("cat /proc/self/cwd/../outside/secret", OUTSIDE),
    ("cat /proc/self/environ", UNKNOWN),
    ("cat ~+/hello.py", ALLOW),
    ("cat ~-/secret", UNKNOWN),
    ("cat '$OUT'", ALLOW),  # single quotes: a file literally named $OUT
    ('cat "$OUT"', UNKNOWN),
    ("cat \\$OUT", ALLOW),
    # --- read-only commands and chains -----------------------------------------------------
    ("ls", ALLOW),
    ("ls -la sub", ALLOW),
    ("ls *.py", ALLOW),
    ("ls ../outside/*", OUTSIDE),
    ("ls .*", UNKNOWN),  # may match .env
    ("cat sub/*", SECRET),  # expands to sub/prod.env
    ("cat hello.py | grep print", ALLOW),
    ("git status && git diff", ALLOW),
    ("git log --oneline -5; git show HEAD", ALLOW),
    ("grep -r TODO .", SECRET),  # descends into .env and sub/prod.env
    ("grep -r TODO sub/a.txt", ALLOW),
    ("rg TODO sub", SECRET),  # sub/prod.env is not hidden
    ("rg TODO hello.py", ALLOW),
    ("find . -name '*.py'", ALLOW),
    ("find $OUT -name x", UNKNOWN),
    ("find . -exec cat {} \\;", SECRET),  # cat reads every file find finds, .env included
    ("find . -name '*.py' -exec cat {} \\;", ALLOW),  # cat on what find finds: read-only
    ("find . -name '*.pyc' -delete", EDIT),  # deletes in the project
    ("true && ls", ALLOW),
    ("echo $OUT", ALLOW),  # echo's arguments are text
    ("echo hi > /dev/null 2>&1", ALLOW),
    ("cat hello.py 2>/dev/null", ALLOW),
    ("PAGER=x git log", RUNS),  # an assignment prefix is not the read-only command
    ("cat hello.py && rm hello.py", EDIT),
    ("rm -rf $OUT", UNKNOWN),
    # --- redirections -------------------------------------------------------------------------
    ("echo hi > out.txt", EDIT_RO),
    ("echo hi >> sub/a.txt", EDIT_RO),
    ("echo x >& {out}/f", OUTSIDE),
    ("echo x &> ../outside/f", OUTSIDE),
    ("cat hello.py 2> $OUT/err", UNKNOWN),
    ("cat < ../outside/secret", OUTSIDE),
    ("cat < $IN", UNKNOWN),
    ('cat <<< "$OUT"', ALLOW),  # a here-string is text
    ("cat <<EOF > $OUT/f\nhi\nEOF", UNKNOWN),
    ("cat <<EOF\n$(cat $OUT/x)\nEOF", UNKNOWN),
    ("cat <<'EOF' > out.txt\n$(cat $OUT/x)\nEOF", EDIT_RO),  # quoted here-doc: nothing runs
    ("exec > out.txt", EDIT),
    ('printf "%s" "$X" > out.txt', EDIT_RO),
    # --- quoting and escapes ------------------------------------------------------------------
    ("cat .env", SECRET),
    ("cat \\.env", SECRET),
    ("cat '.env'", SECRET),
    ('cat ".e"nv', SECRET),
    ("cat .env.example", ALLOW),
    ("cat $'\\x2eenv'", UNKNOWN),
    ("cat {{out},.}/secret", UNKNOWN),  # brace expansion
    ("cat $((1+2))/x", UNKNOWN),
    # --- subshells, groups, cd ----------------------------------------------------------------
    ("(cd {out} && cat secret)", OUTSIDE),
    ("{ cat $OUT/x; }", UNKNOWN),
    ("cd sub && cat ../.env", SECRET),
    ("cd sub && cat prod.env", SECRET),
    ("cd $OUT && cat secret", UNKNOWN),
    ("cd .. && cat outside/secret", OUTSIDE),
    ("pushd sub && cat prod.env && popd", SECRET),
    ("cd sub; cat $PWD/prod.env", SECRET),
    # --- processes that run other commands ----------------------------------------------------
    ("bash -c 'cat $OUT/x'", UNKNOWN),
    ("sh -c 'cat hello.py'", RUNS),
    ("sh -c 'echo x > out.txt'", EDIT),
    ('sh -c "$CMD"', UNKNOWN),
    ("cat hello.py | sh", UNKNOWN),  # the script comes from standard input
    ('eval "cat $OUT/x"', UNKNOWN),
    ("eval 'cat hello.py'", RUNS),
    ("eval 'cat .env'", SECRET),
    ("env cat $OUT/x", UNKNOWN),
    ("command cat .env", SECRET),
    ("time cat $OUT/x", UNKNOWN),
    ("nohup sh -c 'cat $X' &", UNKNOWN),
    ("sudo -u root sh -c 'cat $X'", UNKNOWN),
    ('timeout -s KILL 5 bash -c "$CMD"', UNKNOWN),
    ("env -u HOME sh -c 'echo x > out.txt'", EDIT),
    ("find . -name '*.py' | xargs cat", UNKNOWN),
    ("xargs -a list.txt rm", UNKNOWN),
    ("$EDITOR hello.py", UNKNOWN),
    ('for f in *.py; do cat "$f"; done', UNKNOWN),
    ("cat <(cat $OUT/x)", UNKNOWN),
    ("diff <(ls) <(ls sub)", UNKNOWN),
    ("echo " + "$(" * 500 + "ls" + ")" * 500, UNKNOWN),  # too deep to list: asked for whole
    # --- commands that write files ------------------------------------------------------------
    ("cp hello.py $OUT/", UNKNOWN),
    ("cp hello.py copy.py", EDIT),
    ("cp -t sub hello.py", EDIT),
    ("mv hello.py {out}/", ("ask", "ask", "ask", "deny")),  # moving it out deletes it here
    ("mv hello.py renamed.py", EDIT),
    ("dd if=hello.py of=$OUT/x", UNKNOWN),
    ("dd if=hello.py of=copy.py", EDIT),
    ("dd if=../outside/secret of=/dev/null", OUTSIDE),
    ("dd if=.env of=/dev/null", SECRET),
    ("sed -i s/a/b/ hello.py", EDIT),
    ('sed -i s/a/b/ "$F"', UNKNOWN),
    ("tee $OUT/f", UNKNOWN),
    ("echo x | tee -a out.txt", EDIT_RO),
    ("touch new.txt", EDIT),
    ("tool --output=$OUT/x", UNKNOWN),
    ("tool --output={out}/x", OUTSIDE),
    ("tool -o$OUT", UNKNOWN),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("s")
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    for name in ("hello.py", ".env", ".env.example", "sub/prod.env", "sub/a.txt"):
        (root / name).write_text("x")
    return root.resolve()


def decision(command: str, project: Path, config: Any) -> str:
    ruleset = [*defaults(), *from_config(config)]
    actions = {
        decide(request.permission, pattern, ruleset, []).action
        for request in bash_requests(command, project, project)
        for pattern in request.patterns
    }
    return "deny" if "deny" in actions else "ask" if "ask" in actions else "allow"


@pytest.mark.parametrize(("command", "expected"), ROWS, ids=[row[0][:60] for row in ROWS])
def test_bash_decisions(project: Path, command: str, expected: tuple[str, str, str, str]) -> None:
    line = command.replace("{out}", str(project.parent / "outside"))
    got = tuple(decision(line, project, config) for config in CONFIGS.values())
    assert got == expected, f"{line!r}: {dict(zip(CONFIGS, got, strict=True))}"


def test_unknown_words_are_one_request_that_names_why(project: Path) -> None:
    (request,) = [
        r for r in bash_requests('cp $A "$B/x"', project, project) if r.permission == "unknown_path"
    ]
    assert request.patterns == ["$A", '"$B/x"']
    assert "$A" in request.title and "variable" in request.title
    assert set(request.metadata["reasons"]) == {"$A", '"$B/x"'}
