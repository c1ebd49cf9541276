"""The demo's sample project and the scripted model turns that fix its bug (clearly labelled scripted)."""

from __future__ import annotations

from pathlib import Path

from demo.fake_script import Turn

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST = (
    "from calc import add, mul\n\n"
    "assert add(2, 3) == 5, f'add(2, 3) returned {add(2, 3)}'\n"
    "assert mul(2, 3) == 6\n"
    "print('all tests passed')\n"
)
PROMPT = "The tests in test_calc.py fail. Find the bug and fix it."


def make_project(root: Path) -> Path:
    """Write the sample project (a calculator with a bug and its test) into ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(TEST)
    return root


def turns(python: str) -> list[Turn]:
    """What the scripted model answers, step by step: read, edit, test, report."""
    return [
        Turn.reasoning("The user says the tests fail. I should look at calc.py first.", chunks=6)
        .text("Let me look at the implementation.", chunks=4)
        .tool_call("read", {"filePath": "calc.py"}, fragments=3)
        .usage(input=1200, output=60),
        Turn.text("`add` subtracts instead of adding. Fixing it.", chunks=5)
        .tool_call("edit", {"filePath": "calc.py", "oldString": "return a - b", "newString": "return a + b"})
        .usage(input=1400, output=80),
        Turn.text("Now running the tests.", chunks=3)
        .tool_call("bash", {"command": f"{python} test_calc.py", "description": "Run the tests"})
        .usage(input=1600, output=40),
        Turn.text(
            "Fixed: `add` in `calc.py` returned `a - b`; it now returns `a + b`. "
            "`test_calc.py` passes (all tests passed).",
            chunks=12,
        ).usage(input=1700, output=45),
    ]
