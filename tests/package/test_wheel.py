"""The package as a user gets it: the sdist and the wheel built from it, installed into a fresh venv.

``python -m build`` makes the sdist, then the wheel from that sdist (so a file the sdist forgets is
missing from the wheel too). The wheel goes into a new venv (its dependencies from the package
registry, or pip's cache), and its ``agentls`` runs from a folder outside the checkout with no
``PYTHONPATH``, so nothing can be imported from the source tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import threading
import tomllib
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import IO, Any

import pytest

from core import __version__
from tests.tools import source_build_lock

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # building and installing on a busy two-core machine; each step usually takes seconds

pytestmark = pytest.mark.slow


@dataclass
class Installed:
    """The built files and the fresh venv that holds the wheel."""

    sdist: Path
    wheel: Path
    venv: Path
    home: Path  # HOME, XDG folders and cwd of every run: outside the checkout

    @property
    def agentls(self) -> Path:
        return self.venv / "bin" / "agentls"

    def env(self) -> dict[str, str]:
        """A user's environment: no PYTHONPATH, no project venv on PATH, an empty home."""
        keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE", "PIP_CONFIG_FILE")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env["PATH"] = os.pathsep.join(
            p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO))
        )
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / "config"),
            XDG_DATA_HOME=str(self.home / "data"),
            XDG_CACHE_HOME=str(self.home / "cache"),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        return env

    def run(self, *args: str, stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
        """``agentls ARGS`` from the venv, in the empty home, with ``stdin`` then end of input."""
        return subprocess.run(
            [str(self.agentls), *args],
            input=stdin,
            capture_output=True,
            cwd=self.home,
            env=self.env(),
            timeout=timeout,
            check=False,
        )


def _check(cmd: list[str], cwd: Path) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("package")
    dist = root / "dist"
    with source_build_lock(REPO):  # the sdist's egg-info is written in the checkout, as the .vsix build's
        _check([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], root)
    (sdist,) = dist.glob("agentls-*.tar.gz")
    (wheel,) = dist.glob("agentls-*.whl")
    venv = root / "venv"
    _check([sys.executable, "-m", "venv", str(venv)], root)
    _check([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], root)
    home = root / "home"
    home.mkdir()
    return Installed(sdist, wheel, venv, home)


def test_the_wheel_carries_the_prompts_data_and_license(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for source in [*REPO.glob("prompts/**/*.*"), *REPO.glob("core/**/*.txt"), *REPO.glob("core/**/*.md")]:
        if source.suffix in (".txt", ".md") and "__pycache__" not in source.parts:
            assert source.relative_to(REPO).as_posix() in names, f"{source} is not in the wheel"
    info = f"agentls-{__version__}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert not any(n.startswith(("tests/", "bench/", "editors/")) for n in names)
    assert {"host/__main__.py", "core/remote/attach.py"} <= names  # `python -m host`: the agent host


def test_the_metadata_has_one_version_the_license_urls_and_the_python_floor(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as whl:
        raw = whl.read(f"agentls-{__version__}.dist-info/METADATA").decode()
    meta = HeaderParser().parsestr(raw)
    assert meta["Name"] == "agentls"
    assert meta["Version"] == __version__
    assert installed.wheel.name.startswith(f"agentls-{__version__}-")
    assert installed.sdist.name == f"agentls-{__version__}.tar.gz"
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.11"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    repository = tomllib.loads((REPO / "release.toml").read_text())["release"]["repository"]
    if repository:  # published: the links release.toml names (scripts/release writes them)
        assert urls["Repository"] == repository and {"Homepage", "Issues"} <= urls.keys()
    else:  # unpublished: no invented URL
        assert urls == {}
    assert "Programming Language :: Python :: 3.11" in (meta.get_all("Classifier") or [])


def test_the_sdist_holds_what_a_wheel_is_built_from(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "pyproject.toml", "prompts/system/default.md"} <= names
    assert "core/tools/bash.txt" in names


def test_the_installed_package_is_imported_from_the_venv(installed: Installed) -> None:
    done = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c", "import core, prompts; print(core.__file__)"],
        capture_output=True,
        text=True,
        cwd=installed.home,
        env=installed.env(),
        timeout=60,
        check=True,
    )
    assert done.stdout.strip().startswith(str(installed.venv)), done.stdout
    assert installed.run("--version").stdout.decode().strip() == f"agentls {__version__}"


def test_agentls_demo_runs_from_the_wheel(installed: Installed) -> None:
    done = installed.run("demo", timeout=180)
    out = done.stdout.decode()
    assert done.returncode == 0, f"{out[-3000:]}\n{done.stderr.decode()[-3000:]}"
    assert "return a + b" in out


def _lsp_frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _read_frame(out: IO[bytes]) -> dict[str, Any]:
    headers: dict[bytes, bytes] = {}
    while (line := out.readline().rstrip(b"\r\n")) != b"":
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    assert headers, "the server closed its output"
    frame: dict[str, Any] = json.loads(out.read(int(headers[b"content-length"])))
    return frame


def test_agentls_serve_answers_initialize_from_the_wheel(installed: Installed) -> None:
    proc = subprocess.Popen(
        [str(installed.agentls), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=installed.home,
        env=installed.env(),
    )
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test instead of blocking it
    watchdog.start()
    try:

        def request(id_: int, method: str, params: Any) -> dict[str, Any]:
            send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
            while "method" in (frame := _read_frame(stdout)) or frame.get("id") != id_:
                pass  # the server's own notifications and requests
            return frame

        def send(message: dict[str, Any]) -> None:
            stdin.write(_lsp_frame(message))
            stdin.flush()

        answer = request(1, "initialize", {"processId": None, "capabilities": {}})
        assert answer["result"]["serverInfo"] == {"name": "agentls", "version": __version__}
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        assert request(2, "shutdown", None)["result"] is None
        send({"jsonrpc": "2.0", "method": "exit"})
        stdin.close()
        assert proc.wait() == 0, proc.stderr.read().decode()[-3000:] if proc.stderr else ""
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()


def test_agentls_acp_answers_initialize_with_auth_methods_from_the_wheel(installed: Installed) -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}},
    }
    # The command line the ACP Registry entry gives uvx (registry/agentls/agent.json).
    manifest = json.loads((REPO / "registry" / "agentls" / "agent.json").read_text())
    args = manifest["distribution"]["uvx"]["args"]
    done = installed.run(*args, stdin=json.dumps(request).encode() + b"\n")
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    (line,) = done.stdout.decode().splitlines()
    result = json.loads(line)["result"]
    assert result["agentInfo"]["version"] == __version__
    ids = {m["id"] for m in result["authMethods"]}
    assert ids == {"agentls-config", "agentls-auth"}
