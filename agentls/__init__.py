"""The `agentls` launcher: the one place that knows every front end's commands (see ``cli``).

Importing it first checks the Python version (``python_problem``): an older interpreter gets one
readable line instead of a SyntaxError or ImportError from deep inside the agent. This module must
therefore parse on old Pythons too: no syntax newer than 3.0 (string annotations, str.format).
"""

import sys

MIN_PYTHON = (3, 11)  # pyproject.toml's requires-python (tests/package/test_python_floor.py)
ADVICE = "Install it with a newer Python, e.g. `pipx install --python python3.11 agentls`."


def python_problem(
    version: "tuple[int, ...]" = tuple(sys.version_info[:3]), executable: str = sys.executable
) -> "str | None":
    """The message for a Python older than ``MIN_PYTHON``; None when it is new enough."""
    if tuple(version[:2]) >= MIN_PYTHON:
        return None
    return "agentls needs Python {}.{} or newer; it was started with Python {} ({}). {}".format(
        MIN_PYTHON[0],
        MIN_PYTHON[1],
        ".".join(str(part) for part in version[:3]),
        executable or "an unknown interpreter",
        ADVICE,
    )


_problem = python_problem()
if _problem is not None:
    sys.stderr.write(_problem + "\n")
    raise SystemExit(1)
