"""The small Python project most tasks start from: a calculator with a bug and its unit tests."""

from __future__ import annotations

from typing import Any

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = CALC.replace("return a - b", "return a + b")
TESTS = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)
README = "# calc\n\nRun the tests with `sh run-tests.sh` (never call unittest or pytest directly).\n"
RUN_TESTS = "#!/bin/sh\nexec python3 -m unittest -q\n"
PROJECT = {"calc.py": CALC, "test_calc.py": TESTS, "README.md": README, "run-tests.sh": RUN_TESTS}


def fix_add() -> dict[str, Any]:
    """The edit tool's arguments that fix add()."""
    return {"filePath": "calc.py", "oldString": "return a - b", "newString": "return a + b"}


def bash(command: str) -> dict[str, Any]:
    return {"command": command, "description": "run a command"}
