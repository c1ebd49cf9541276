"""Tasks about changing and reading code: fix, test, create, rename, answer, read in parallel."""

from __future__ import annotations

from pathlib import Path

from bench.evals.checks import changed, edits, first, tests_fail
from bench.evals.model import Run, Task
from bench.evals.tasks.project import CALC, FIXED, PROJECT, bash, fix_add
from demo.fake_script import Turn


def _fix_bug(root: Path, run: Run) -> str | None:
    return tests_fail(root)


def _tests_run_after_fix(root: Path, run: Run) -> str | None:
    ran = any("run-tests.sh" in c or "unittest" in c or "pytest" in c for c in run.commands())
    return first(tests_fail(root), None if ran else "the tests were never run")


def _test_added(root: Path, run: Run) -> str | None:
    tests = "".join(p.read_text() for p in root.glob("test_*.py"))
    return first(tests_fail(root), None if "mul(" in tests else "no test calls mul()")


def _hello_created(root: Path, run: Run) -> str | None:
    import subprocess
    import sys

    if not (root / "hello.py").exists():
        return "hello.py was not created"
    out = subprocess.run([sys.executable, "hello.py"], cwd=root, capture_output=True, text=True, timeout=30)
    return None if out.stdout.strip() == "hello world" else f"hello.py printed {out.stdout!r}"


def _renamed(root: Path, run: Run) -> str | None:
    left = [p.name for p in root.glob("*.py") if "old_name" in p.read_text()]
    return first(f"old_name is still in {left}" if left else None, tests_fail(root))


def _version_answered(root: Path, run: Run) -> str | None:
    return first(
        None if "1.4.2" in run.answer else "the answer does not give the version",
        f"files changed: {changed(root)}" if changed(root) else None,
    )


def _explained_without_edits(root: Path, run: Run) -> str | None:
    return first(
        f"a question was answered with edits: {changed(root) or edits(run)}"
        if changed(root) or edits(run)
        else None,
        None if "add" in run.answer else "the answer does not talk about add()",
    )


FIVE = {f"{n}.py": f"# module {n}\n" + ("target = 42\n" if n == "c" else "other = 1\n") for n in "abcde"}


def _five_in_one_step(root: Path, run: Run) -> str | None:
    by_step: dict[int, set[str]] = {}
    for call in run.calls:
        if call.tool == "read":
            by_step.setdefault(call.step, set()).add(Path(str(call.input.get("filePath", ""))).name)
    together = any(set(FIVE) <= names for names in by_step.values())
    return first(
        None if together else "the five files were not read in one step",
        None if "c.py" in run.answer else "the answer does not name c.py",
    )


def _only_calc_changed(root: Path, run: Run) -> str | None:
    extra = [f for f in changed(root) if f != "calc.py"]
    return first(tests_fail(root), f"files nobody asked for: {extra}" if extra else None)


def _own_test_command(root: Path, run: Run) -> str | None:
    used = any("run-tests.sh" in c for c in run.commands())
    return first(
        None if used else f"the README's test command was not used: {run.commands()}",
        None if "pass" in run.answer.lower() or "fail" in run.answer.lower() else "no verdict in the answer",
    )


RENAME = {
    "names.py": "def old_name():\n    return 1\n",
    "use.py": "from names import old_name\n\n\ndef twice():\n    return 2 * old_name()\n",
    "test_use.py": "import unittest\n\nfrom use import twice\n\n\nclass T(unittest.TestCase):\n"
    "    def test_twice(self):\n        self.assertEqual(twice(), 2)\n",
}

TASKS = (
    Task(
        "fix-bug",
        "The test suite fails. Fix the bug.",
        PROJECT,
        _fix_bug,
        good=lambda: [Turn.tool_call("edit", fix_add()), Turn.text("Fixed add().")],
        bad=lambda: [Turn.text("The bug is in add(); it subtracts.")],
    ),
    Task(
        "verify-after-fix",
        "Fix the bug in calc.py and make sure the tests pass.",
        PROJECT,
        _tests_run_after_fix,
        good=lambda: [
            Turn.tool_call("edit", fix_add()),
            Turn.tool_call("bash", bash("sh run-tests.sh")),
            Turn.text("Fixed; the tests pass."),
        ],
        bad=lambda: [Turn.tool_call("edit", fix_add()), Turn.text("Fixed.")],
    ),
    Task(
        "add-test",
        "Add a unit test for calc.mul to test_calc.py.",
        {**PROJECT, "calc.py": FIXED},
        _test_added,
        good=lambda: [
            Turn.tool_call(
                "edit",
                {
                    "filePath": "test_calc.py",
                    "oldString": "from calc import add",
                    "newString": "from calc import add, mul",
                },
            ).tool_call(
                "edit",
                {
                    "filePath": "test_calc.py",
                    "oldString": "        self.assertEqual(add(2, 3), 5)\n",
                    "newString": "        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n"
                    "        self.assertEqual(mul(2, 3), 6)\n",
                },
            ),
            Turn.text("Added test_mul."),
        ],
        bad=lambda: [Turn.text("You could add a test_mul method.")],
    ),
    Task(
        "create-file",
        "Create hello.py that prints 'hello world' when run.",
        PROJECT,
        _hello_created,
        good=lambda: [
            Turn.tool_call("write", {"filePath": "hello.py", "content": "print('hello world')\n"}),
            Turn.text("Created hello.py."),
        ],
        bad=lambda: [
            Turn.tool_call("write", {"filePath": "hello.py", "content": "print('hello')\n"}),
            Turn.text("Created hello.py."),
        ],
    ),
    Task(
        "rename-everywhere",
        "Rename the function old_name to new_name everywhere in this project.",
        RENAME,
        _renamed,
        good=lambda: [
            Turn.tool_call(
                "edit", {"filePath": "names.py", "oldString": "old_name", "newString": "new_name"}
            ).tool_call(
                "edit",
                {"filePath": "use.py", "oldString": "old_name", "newString": "new_name", "replaceAll": True},
            ),
            Turn.text("Renamed in names.py and use.py."),
        ],
        bad=lambda: [
            Turn.tool_call(
                "edit", {"filePath": "names.py", "oldString": "old_name", "newString": "new_name"}
            ),
            Turn.text("Renamed."),
        ],
    ),
    Task(
        "answer-a-question",
        "Which version does the VERSION file give?",
        {**PROJECT, "VERSION": "1.4.2\n"},
        _version_answered,
        good=lambda: [Turn.tool_call("read", {"filePath": "VERSION"}), Turn.text("It says 1.4.2.")],
        bad=lambda: [Turn.text("I cannot tell.")],
    ),
    Task(
        "explain-without-editing",
        "How does calc.add work? Just explain, I will decide what to do.",
        PROJECT,
        _explained_without_edits,
        good=lambda: [
            Turn.tool_call("read", {"filePath": "calc.py"}),
            Turn.text("add(a, b) returns a - b, so it subtracts; that looks like a bug."),
        ],
        bad=lambda: [
            Turn.tool_call("read", {"filePath": "calc.py"}),
            Turn.tool_call("edit", fix_add()),
            Turn.text("add subtracted, so I fixed it."),
        ],
    ),
    Task(
        "read-five-in-one-step",
        "Read a.py, b.py, c.py, d.py and e.py and tell me which one defines target.",
        FIVE,
        _five_in_one_step,
        good=lambda: [
            _reads("abcde"),
            Turn.text("c.py defines target."),
        ],
        bad=lambda: [*[_reads(n) for n in "abcde"], Turn.text("c.py defines target.")],
    ),
    Task(
        "no-files-nobody-asked-for",
        "Fix the bug in calc.py.",
        PROJECT,
        _only_calc_changed,
        good=lambda: [Turn.tool_call("edit", fix_add()), Turn.text("Fixed add().")],
        bad=lambda: [
            Turn.tool_call("edit", fix_add()).tool_call(
                "write", {"filePath": "FIX_NOTES.md", "content": "# Notes\nadd() was wrong.\n"}
            ),
            Turn.text("Fixed add() and wrote notes."),
        ],
    ),
    Task(
        "project-test-command",
        "Run this project's tests and tell me whether they pass.",
        {**PROJECT, "calc.py": FIXED},
        _own_test_command,
        good=lambda: [Turn.tool_call("bash", bash("sh run-tests.sh")), Turn.text("The tests pass.")],
        bad=lambda: [Turn.tool_call("bash", bash("python3 -m pytest -q")), Turn.text("The tests pass.")],
    ),
)


def _reads(names: str) -> Turn:
    turn = Turn()
    for name in names:
        turn = turn.tool_call("read", {"filePath": f"{name}.py"})
    return turn


assert CALC != FIXED
