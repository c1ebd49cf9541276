"""Issue 43's bypasses, form by form, under five rule sets (the rules alone, no sandbox).

Each row is a command and the decision (the strictest of all the requests it makes) under:
  D    the built-in defaults,
  RMD  a user's ``{"bash": {"rm *": "deny"}}``,
  RMA  ``{"bash": {"*": "allow", "rm *": "ask"}}`` — every command allowed but rm,
  GPA  ``{"bash": {"*": "allow", "git push *": "ask"}}``,
  EA   ``{"bash": "allow", "edit": "allow"}`` — commands and edits allowed (secrets still ask).
The project holds ``x`` (what the rows delete), ``hello.py``, ``in.txt``, ``.env``,
``.env.example``, ``sub/prod.env``, ``sub/a.txt`` and ``docs/guide.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.permission.bash import bash_requests
from core.permission.rules import decide, defaults, from_config

CONFIGS: dict[str, Any] = {
    "D": None,
    "RMD": {"bash": {"rm *": "deny"}},
    "RMA": {"bash": {"*": "allow", "rm *": "ask"}},
    "GPA": {"bash": {"*": "allow", "git push *": "ask"}},
    "EA": {"bash": "allow", "edit": "allow"},
}
Row = tuple[str, str, str, str, str]

RM: Row = ("ask", "deny", "ask", "ask", "allow")  # rm of a project file, by whatever route
RM_RUN: Row = ("ask", "deny", "ask", "allow", "allow")  # rm run, no project file named
HIDDEN: Row = ("ask", "ask", "ask", "ask", "ask")  # what runs or is touched cannot be told
READ: Row = ("allow", "allow", "allow", "allow", "allow")
RUNS: Row = ("ask", "ask", "allow", "allow", "allow")  # not read-only, nothing guarded
WRITES: Row = ("ask", "ask", "ask", "ask", "allow")  # writes a project file
SECRET: Row = ("ask", "ask", "ask", "ask", "ask")  # reads .env or another secret
PUSH: Row = ("ask", "ask", "allow", "ask", "allow")
# xargs adds arguments it reads (unknown: asks everywhere), and the rm it runs is denied by name.
XARGS_RM: Row = ("ask", "deny", "ask", "ask", "ask")
# rm run by a wrapper that also moves its paths or writes a file (chroot, strace -o): denied by
# name, and asked everywhere for what else cannot be told.
RM_ASKS: Row = XARGS_RM

ROWS: list[tuple[str, Row]] = [
    # --- rm by path, quoting and assignments ------------------------------------------------
    ("rm x", RM),
    ("rm -rf x", RM),
    ("/bin/rm x", RM),
    ("/usr/bin/rm -f x", RM),
    ("./rm x", RM),
    ("../project/rm x", RM),
    ("\\rm x", RM),
    ("'rm' x", RM),
    ('"rm" x', RM),
    ("r''m x", RM),
    ("X=1 rm x", RM),
    ("LC_ALL=C /bin/rm x", RM),
    ("$RM x", HIDDEN),
    # --- wrappers ---------------------------------------------------------------------------
    ("env rm x", RM),
    ("env -i rm x", RM),
    ("env -i FOO=1 rm x", RM),
    ("env -u HOME rm x", RM),
    ("env - rm x", RM),
    ("env -S 'rm x'", RM),
    ("env --split-string='rm x'", RM),
    ("env -C /tmp rm x", HIDDEN),
    ("/usr/bin/env rm x", RM),
    ("command rm x", RM),
    ("command -p rm x", RM),
    ("exec rm x", RM),
    ("exec -a name rm x", RM),
    ("builtin rm x", RM),
    ("nice rm x", RM),
    ("nice -n 5 rm x", RM),
    ("nice -n5 rm x", RM),
    ("nice --adjustment=5 rm x", RM),
    ("nice -10 rm x", RM),
    ("ionice rm x", RM),
    ("ionice -c 3 rm x", RM),
    ("ionice -c3 -n7 rm x", RM),
    ("timeout 5 rm x", RM),
    ("timeout 5s rm x", RM),
    ("timeout -s KILL 5 rm x", RM),
    ("timeout --signal=KILL -k 1 5 rm x", RM),
    ("timeout --preserve-status 5 rm x", RM),
    ("nohup rm x", RM),
    ("nohup rm x &", RM),
    ("time rm x", RM),
    ("time -p rm x", RM),
    ("stdbuf -oL rm x", RM),
    ("stdbuf -o L -e 0 rm x", RM),
    ("stdbuf --output=L rm x", RM),
    ("setsid rm x", RM),
    ("setsid -f rm x", RM),
    ("sudo rm x", RM),
    ("sudo -u bob rm x", RM),
    ("sudo -E -H rm x", RM),
    ("sudo --user=bob rm x", RM),
    ("sudo -- rm x", RM),
    ("sudo -e x", HIDDEN),
    ("echo 'rm x' | sudo -s", HIDDEN),  # a shell that reads its commands from the pipe
    ("sudo -s rm x", RM),
    ("doas rm x", RM),
    ("doas -u bob rm x", RM),
    ("chrt -f 10 rm x", RM),
    ("chrt --idle 0 rm x", RM),
    ("taskset 1 rm x", RM),
    ("taskset -c 0,1 rm x", RM),
    ("flock .lock rm x", RM),
    ("flock -n .lock rm x", RM),
    ("flock .lock -c 'rm x'", RM),
    ("flock -c 'rm x' .lock", RM),
    ("unbuffer rm x", RM),
    ("unbuffer -p rm x", RM),
    ("watch rm x", RM),
    ("watch -n 1 rm x", RM),
    ("watch 'rm x'", RM),
    ("busybox rm x", RM),
    ("busybox sh -c 'rm x'", RM),
    ("sudo nice -n 5 timeout 3 rm x", RM),
    ("env nohup nice setsid rm x", RM),
    ("nice --frobnicate rm x", HIDDEN),  # an option the checker does not know hides the command
    ("sudo -Z rm x", HIDDEN),
    ("timeout --nonsense 5 rm x", HIDDEN),
    ("nice $CMD", HIDDEN),
    ("command -v rm", RUNS),  # only prints where rm is
    ("sudo -l", RUNS),
    ("exec > out.txt", WRITES),
    # --- shells and eval --------------------------------------------------------------------
    ("sh -c 'rm x'", RM),
    ("bash -c 'rm x'", RM),
    ("bash -lc 'rm x'", RM),
    ("/bin/bash -c 'rm x'", RM),
    ("zsh -c 'rm x'", RM),
    ("dash -c 'ls; rm x'", RM),
    ("sudo sh -c 'rm x'", RM),
    ("eval rm x", RM),
    ("eval 'rm x'", RM),
    ('eval "$CMD"', HIDDEN),
    ('sh -c "$CMD"', HIDDEN),
    ("echo rm x | sh", HIDDEN),
    ("$(echo rm) x", HIDDEN),
    # --- find and xargs ---------------------------------------------------------------------
    ("find . -delete", RM),
    ("find sub -name '*.txt' -delete", RM),
    ("find -L . -name x -delete", RM),
    ("find . -name x -exec rm {} \\;", RM),
    ("find . -name x -exec rm -f {} +", RM),
    ("find . -name x -execdir rm {} \\;", RM),
    ("find . -name x -ok rm {} \\;", RM),
    ("find . -name x -okdir rm {} \\;", RM),
    ("find . -name x -exec command rm {} \\;", RM),
    ("find . -name x -exec nice rm {} \\;", RM),
    ("find . -name x -fprint out.txt", WRITES),
    ("find . -fprintf out.txt '%p'", WRITES),
    ("find . -fls out.txt", WRITES),
    ("find . -name '*.py'", READ),
    ("find . -name '*.py' -exec wc -l {} \\;", READ),
    ("xargs rm", XARGS_RM),
    ("xargs -0 rm -f", XARGS_RM),
    ("ls | xargs -I{} rm {}", XARGS_RM),
    # --- git ---------------------------------------------------------------------------------
    ("git push", PUSH),
    ("git push origin main", PUSH),
    ("git -C sub push", PUSH),
    ("git --no-pager push", PUSH),
    ("git -c color.ui=always push", PUSH),
    ("/usr/bin/git push", PUSH),
    ("GIT_TRACE=1 git push", PUSH),
    ("env git push", PUSH),
    ("nice git push --force", PUSH),
    ("git -c alias.p=push p", PUSH),
    ("git -c 'alias.x=!rm x' x", RM),
    ("git -c core.pager='rm x' log", RM),
    ("git -c core.fsmonitor='rm x' status", RM),
    ("git -c diff.external=./evil diff", RUNS),
    ("git -c core.hooksPath=hooks commit -m x", HIDDEN),
    ("git --config-env=core.pager=PAGER log", HIDDEN),
    ("git status", READ),
    ("git log --oneline -5", READ),
    ("git diff --stat", READ),
    ("git diff --output=patch.txt", WRITES),
    ("git diff --output patch.txt", WRITES),
    ("git log -p --output=log.txt", WRITES),
    ("git show --out=show.txt HEAD", WRITES),  # an abbreviated long option
    ("git diff --ext-diff", HIDDEN),
    ("git branch", READ),
    ("git branch -a -D main", RUNS),
    ("git branch -l --delete main", RUNS),
    # --- read-only commands that write or run through an option ----------------------------
    ("sort in.txt", READ),
    ("sort -u in.txt", READ),
    ("sort -uo out.txt in.txt", WRITES),
    ("sort -o out.txt in.txt", WRITES),
    ("sort -oout.txt in.txt", WRITES),
    ("sort in.txt -o out.txt", WRITES),
    ("sort --output=out.txt in.txt", WRITES),
    ("sort --output out.txt in.txt", WRITES),
    ("sort --out=out.txt in.txt", WRITES),
    ("sort -k2 -t, -o out.txt in.txt", WRITES),
    ("sort -o in.txt in.txt", WRITES),
    ("sort --compress-program=rm in.txt", RM_RUN),
    ("sort --compress-program=gzip in.txt", RUNS),
    ("rg --pre rm TOKEN hello.py", RM_RUN),
    ("rg --pre=./x.sh TOKEN hello.py", RUNS),
    ("rg --hostname-bin=rm TOKEN hello.py", RM_RUN),
    ("rg --pre-glob '*.py' TOKEN hello.py", READ),
    ("tree -o out.txt", WRITES),
    ("tree -L 2", READ),
    ("file -C -m magic", HIDDEN),
    ("file hello.py", READ),
    ("uniq in.txt", RUNS),
    ("uniq in.txt out.txt", WRITES),
    ("uniq -c in.txt out.txt", WRITES),
    ("xxd in.txt out.txt", WRITES),
    ("xxd -r in.txt out.txt", WRITES),
    ("time -o out.txt ls", WRITES),
    ("man -P 'rm x' ls", RM),
    ("split -l 10 in.txt", HIDDEN),
    ("csplit in.txt 3", HIDDEN),
    ("tar tf a.tar", RUNS),
    ("tar -tvf a.tar", RUNS),
    ("tar xf a.tar", HIDDEN),
    ("tar -xzf a.tgz", HIDDEN),
    ("tar czf out.tgz .", HIDDEN),
    ("tar --to-command=sh -tf a.tar", HIDDEN),
    ("sed -n 1p hello.py", RUNS),
    ("sed -i s/a/b/ hello.py", WRITES),
    ("sed 's/a/b/w out.txt' hello.py", HIDDEN),
    ("sed -n '/x/w out.txt' hello.py", HIDDEN),
    ("sed '1e rm x' hello.py", HIDDEN),
    ("sed -f script.sed hello.py", HIDDEN),
    ("awk '{print $1}' in.txt", RUNS),
    ("awk 'BEGIN{system(\"rm x\")}'", HIDDEN),
    ("awk '{print > \"out.txt\"}' in.txt", HIDDEN),
    ("awk '{print | \"sh\"}' in.txt", HIDDEN),
    ("awk -f prog.awk in.txt", HIDDEN),
    ("tee out.txt", WRITES),
    ("echo x | tee -a out.txt", WRITES),
    ("date", RUNS),
    # --- searches that descend into secrets -------------------------------------------------
    ("grep -r TOKEN .", SECRET),
    ("grep -R TOKEN .", SECRET),
    ("grep -rn TOKEN", SECRET),  # no folder: the current one
    ("grep --recursive TOKEN sub", SECRET),
    ("grep -d recurse TOKEN .", SECRET),
    ("egrep -r TOKEN .", SECRET),
    ("fgrep -r TOKEN .", SECRET),
    ("rgrep TOKEN .", SECRET),
    ("grep -r --include='*.py' TOKEN .", READ),
    ("grep -r --exclude='*.env*' TOKEN .", READ),
    ("grep -r TOKEN docs", READ),
    ("grep -r -e TOKEN docs", READ),
    ("grep TOKEN hello.py", READ),
    ("grep TOKEN .env", SECRET),
    ("rg TOKEN docs", READ),
    ("rg TOKEN", SECRET),  # sub/prod.env is not hidden
    ("rg -uu TOKEN", SECRET),
    ("rg -uu TOKEN docs", READ),
    ("rg --hidden --no-ignore TOKEN", SECRET),
    ("rg -. TOKEN", SECRET),
    ("rg -g '*.py' TOKEN", READ),
    ("rg --files", READ),
    ("ag TOKEN docs", RUNS),
    ("ag -u TOKEN", SECRET),
    ("ack TOKEN", SECRET),
    ("git grep TOKEN", RUNS),  # tracked files only; git grep is not on the read-only list
    ("git grep --untracked TOKEN", SECRET),
    ("git grep --untracked --no-exclude-standard TOKEN", SECRET),
    ("git grep --no-index TOKEN docs", RUNS),
    ("diff -r sub docs", SECRET),
    ("diff -r docs docs", READ),
    ("find . -name .env -exec cat {} \\;", SECRET),
    ("find . -exec cat {} +", SECRET),
    ("find docs -exec cat {} \\;", READ),
    ("find . -name '*.md' -exec cat {} \\;", READ),
    ("find . ! -name '*.py' -exec cat {} \\;", SECRET),
    ("cat .env", SECRET),
    ("tail .env", SECRET),
    ("head -n 5 sub/prod.env", SECRET),
    ("cat .e*", HIDDEN),
    ("cat sub/*", SECRET),
    ("cat .env.example", READ),
    ("nice cat .env", SECRET),
    ("sudo cat .env", SECRET),
    ("timeout 5 grep -r TOKEN .", SECRET),
    # --- variables whose value a program runs ---------------------------------------------
    ("GIT_PAGER='rm x' git log", RM),
    ("PAGER='rm x' man ls", RM),
    ("GIT_EXTERNAL_DIFF=rm git diff", RM_RUN),
    ("EDITOR='rm x' git commit", RM),
    ("export GIT_PAGER='rm x'; git log", RM),
    ("LESSOPEN='|rm x %s' less hello.py", RM),
    ('GIT_PAGER="$CMD" git log', HIDDEN),
    ("GIT_PAGER=cat git log", RUNS),  # an assignment prefix is not the read-only command
    # --- variables that make a program load or run code ---------------------------------------
    ("LD_PRELOAD=./x.so ls", HIDDEN),
    ("LD_LIBRARY_PATH=. cat in.txt", HIDDEN),
    ("DYLD_INSERT_LIBRARIES=x.dylib ls", HIDDEN),
    ("PYTHONSTARTUP=x.py python", HIDDEN),
    ("PYTHONPATH=. python -c 'import json'", HIDDEN),
    ("NODE_OPTIONS='--require ./x.js' node -v", HIDDEN),
    ("PERL5OPT=-Mx perl -v", HIDDEN),
    ("PATH=.:$PATH ls", HIDDEN),
    ("GIT_DIR=/tmp/r git log", HIDDEN),
    ("GIT_CONFIG_GLOBAL=x.cfg git log", HIDDEN),
    ("env LD_PRELOAD=./x.so ls", HIDDEN),
    ("env -i LD_PRELOAD=./x.so ls", HIDDEN),
    ("sudo LD_PRELOAD=./x.so ls", HIDDEN),
    ("export LD_PRELOAD=./x.so; ls", HIDDEN),
    ("GIT_SSH_COMMAND='rm x' git fetch", RM),
    ("GIT_PROXY_COMMAND='rm x' git fetch", RM),
    ("PROMPT_COMMAND='rm x' bash -i", RM_ASKS),  # rm by name; the shell reads standard input
    ("LC_ALL=C ls", RUNS),  # a variable that loads nothing: only the assignment prefix asks
    ("env LC_ALL=C rm x", RM),
    # --- more wrappers ---------------------------------------------------------------------
    ("strace rm x", RM),
    ("strace -f -e trace=file rm x", RM),
    ("strace -ff -tt rm x", RM),
    ("strace -o trace.log rm x", RM_ASKS),
    ("strace -E LD_PRELOAD=x.so ls", HIDDEN),
    ("strace -Q rm x", HIDDEN),
    ("ltrace -c rm x", RM),
    ("su -c 'rm x'", RM),
    ("su - bob -c 'rm x'", RM),
    ("su bob --command='rm x'", RM),
    ("su", HIDDEN),
    ("su -s /bin/sh -c 'ls'", HIDDEN),
    ("runuser -u bob -- rm x", RM),
    ("runuser -l bob -c 'rm x'", RM),
    ("chroot /srv rm x", RM_ASKS),
    ("chroot /srv", HIDDEN),
    ("unshare -r rm x", RM),
    ("unshare --wd=/tmp rm x", RM_ASKS),
    ("unshare", HIDDEN),
    ("nsenter -t 1 -m rm x", RM_ASKS),
    ("systemd-run --user rm x", RM_ASKS),
    ("systemd-run -E LD_PRELOAD=x.so ls", HIDDEN),
    ("script -c 'rm x' /dev/null", RM),
    ("script -q -c 'rm x'", RM_ASKS),
    ("script", HIDDEN),
    ("parallel rm ::: x", XARGS_RM),
    ("parallel -j4 rm ::: x", XARGS_RM),
    ("ls | parallel rm", XARGS_RM),
    ("parallel -S host rm ::: x", HIDDEN),
    ("xargs --max-args 1 rm", XARGS_RM),
    ("xargs -r -t rm", XARGS_RM),
    ("xargs -a list.txt rm", XARGS_RM),
    ("firejail --private rm x", RM),
    ("firejail --output=log rm x", RM_ASKS),
    ("firejail --private", HIDDEN),  # the user's shell, reading standard input
    ("script --bogus -c 'rm x'", HIDDEN),
    ("su --bogus -c 'rm x'", HIDDEN),
    ("runuser -u bob rm x", RM),
    ("proot -0 rm x", RM),
    ("proot -r /srv rm x", RM_ASKS),
    ("fakeroot rm x", RM),
    ("fakeroot -- rm x", RM),
    ("fakeroot -l ./x.so rm x", HIDDEN),
    ("fakeroot", HIDDEN),
    ("catchsegv rm x", RM),
    ("valgrind rm x", RM),
    ("valgrind --tool=memcheck -q rm x", RM),
    ("valgrind --log-file=v.log rm x", RM_ASKS),
    ("perf stat rm x", RM),
    ("perf stat -e cycles -r 3 rm x", RM),
    ("perf record -g rm x", RM_ASKS),
    ("perf stat --bogus rm x", HIDDEN),
    ("gdb -batch -ex run --args rm x", RM),
    ("gdb -q --args rm x", RM),
    ("gdb -batch -ex 'shell rm x' ls", HIDDEN),
    ("gdb -x cmds.gdb ls", HIDDEN),
    ("caffeinate -i rm x", RM),
    ("caffeinate -t 60 rm x", RM),
    ("sudo strace -f timeout 5 rm x", RM),
    # --- chains keep every command ---------------------------------------------------------
    ("ls && rm x", RM),
    ("ls; nice rm x", RM),
    ("ls | xargs rm", XARGS_RM),
    ("(cd sub && /bin/rm a.txt)", RM),
    ("echo $(rm x)", RM),
    ("true || command rm x", RM),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    root = tmp_path / "project"
    for folder in ("sub", "docs"):
        (root / folder).mkdir(parents=True)
    for name in (
        "x",
        "hello.py",
        "in.txt",
        ".env",
        ".env.example",
        "sub/prod.env",
        "sub/a.txt",
        "docs/guide.md",
    ):
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


def test_the_table_covers_at_least_150_forms() -> None:
    assert len({command for command, _ in ROWS}) == len(ROWS) >= 150


@pytest.mark.parametrize(("command", "expected"), ROWS, ids=[row[0][:60] for row in ROWS])
def test_bash_forms(project: Path, command: str, expected: Row) -> None:
    got = tuple(decision(command, project, config) for config in CONFIGS.values())
    assert got == expected, f"{command!r}: {dict(zip(CONFIGS, got, strict=True))}"
