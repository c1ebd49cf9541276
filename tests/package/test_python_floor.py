"""The Python floor: the metadata states it (pip refuses an older Python) and the launcher says it.

With an older interpreter on the machine (pyenv's, or ``python3.N`` on PATH), the real thing: pip in
an old venv refuses the wheel, and the wheel forced in anyway gives one readable line from
``agentls`` instead of a traceback. Without one, the check function and the metadata are tested.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from agentls import MIN_PYTHON, python_problem

REPO = Path(__file__).resolve().parents[2]
FLOOR = ".".join(map(str, MIN_PYTHON))


def older_python() -> Path | None:
    """The newest interpreter on this machine older than the floor (one that runs), if any."""
    candidates = [*Path.home().glob(".pyenv/versions/3.*/bin/python3.*")]
    candidates += [Path(p) for m in range(6, MIN_PYTHON[1]) if (p := shutil.which(f"python3.{m}"))]
    found: dict[tuple[int, int], Path] = {}
    for path in candidates:
        if not re.fullmatch(r"python3\.\d+", path.name) or "shims" in path.parts:
            continue
        probe = [str(path), "-c", "import sys; print('%d %d' % sys.version_info[:2])"]
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
        if done.returncode == 0:
            major, minor = map(int, done.stdout.split())
            if (major, minor) < MIN_PYTHON:
                found[(major, minor)] = path
    return found[max(found)] if found else None


OLD = older_python()
needs_old = pytest.mark.skipif(OLD is None, reason="no Python older than the floor on this machine")


def test_the_floor_is_the_metadatas() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">={FLOOR}"
    assert f"Programming Language :: Python :: {FLOOR}" in project["classifiers"]


@pytest.mark.parametrize(
    ("version", "refused"),
    [((3, 11, 0), False), ((3, 13, 1), False), ((4, 0, 0), False), ((3, 10, 13), True), ((2, 7, 18), True)],
)
def test_the_launchers_check(version: tuple[int, ...], refused: bool) -> None:
    problem = python_problem(version, "/opt/py/bin/python")
    if not refused:
        assert problem is None
        return
    assert problem is not None
    shown = ".".join(map(str, version))
    assert problem.startswith(f"agentls needs Python {FLOOR} or newer; it was started with Python {shown}")
    assert "/opt/py/bin/python" in problem and "pipx install" in problem


@needs_old
def test_the_launcher_says_so_on_an_older_python(tmp_path: Path) -> None:
    assert OLD is not None
    done = subprocess.run(
        [str(OLD), "-m", "agentls", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()  # one line, no traceback
    assert line.startswith(f"agentls needs Python {FLOOR} or newer; it was started with Python 3.")
    assert str(OLD) in line


@pytest.fixture(scope="module")
def old_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A venv of the older Python, and the agentls wheel (built without its dependencies)."""
    assert OLD is not None
    root = tmp_path_factory.mktemp("floor")
    for cmd in (
        [
            shutil.which("python3") or "python3",
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(root),
            str(REPO),
        ],
        [str(OLD), "-m", "venv", str(root / "venv")],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = root.glob("agentls-*.whl")
    return root / "venv", wheel


pip_offline = ["-m", "pip", "install", "-q", "--no-index", "--no-deps", "--disable-pip-version-check"]


@pytest.mark.slow
@needs_old
def test_pip_refuses_the_wheel_on_an_older_python(old_venv: tuple[Path, Path]) -> None:
    venv, wheel = old_venv
    done = subprocess.run(
        [str(venv / "bin" / "python"), *pip_offline, str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert "requires a different Python" in done.stderr and f">={FLOOR}" in done.stderr, done.stderr


@pytest.mark.slow
@needs_old
def test_the_wheel_forced_onto_an_older_python_says_so(old_venv: tuple[Path, Path], tmp_path: Path) -> None:
    venv, wheel = old_venv
    forced = [str(venv / "bin" / "python"), *pip_offline, "--ignore-requires-python", str(wheel)]
    done = subprocess.run(forced, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = subprocess.run(
        [str(venv / "bin" / "agentls"), "acp"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert ran.returncode == 1
    (line,) = ran.stderr.splitlines()
    assert line.startswith(f"agentls needs Python {FLOOR} or newer") and str(venv) in line, ran.stderr
