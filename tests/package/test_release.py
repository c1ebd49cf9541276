"""`scripts/release`: release.toml is the one source of the publishing metadata, the three files that
carry it agree with it (so the test command fails on drift), and the script fills it in — run as a
real subprocess on a temporary copy of the project."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FILES = ["release.toml", "pyproject.toml", "editors/vscode/package.json", "registry/agentls/agent.json"]
COPIED = [*FILES, "core/__init__.py", "registry/agentls/icon.svg"]
RELEASE = REPO / "scripts" / "release"


def release(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RELEASE), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in COPIED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path


def _set(root: Path, repository: str, authors: list[str], publisher: str = "agentls") -> None:
    (root / "release.toml").write_text(
        f"[release]\nrepository = {json.dumps(repository)}\nauthors = {json.dumps(authors)}\n"
        f"publisher = {json.dumps(publisher)}\n"
    )


def test_the_project_agrees_with_release_toml() -> None:
    done = release("--check")
    assert done.returncode == 0, done.stderr


def test_unpublished_names_no_url_anywhere() -> None:
    assert tomllib.loads((REPO / "release.toml").read_text())["release"]["repository"] == ""
    texts = {name: (REPO / name).read_text() for name in FILES[1:]}
    assert [name for name, text in texts.items() if "github.com" in text or "agentls/agentls" in text] == []
    agent = json.loads(texts["registry/agentls/agent.json"])
    assert agent["license_url"] == "https://spdx.org/licenses/MIT.html" and "repository" not in agent


def test_filling_in_a_repository_writes_it_everywhere_and_back(copy: Path) -> None:
    before = {name: (copy / name).read_text() for name in FILES[1:]}
    _set(copy, "https://example.org/team/agentls", ["Ada Lovelace", "Alan Turing"], publisher="agentls-team")
    assert release("--check", "--root", str(copy)).returncode == 1  # release.toml changed: drift
    done = release("--fill", "--root", str(copy))
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) >= {"wrote", *FILES[1:]}

    project = tomllib.loads((copy / "pyproject.toml").read_text())["project"]
    assert project["authors"] == [{"name": "Ada Lovelace"}, {"name": "Alan Turing"}]
    assert project["urls"]["Repository"] == "https://example.org/team/agentls"
    assert project["urls"]["Issues"] == "https://example.org/team/agentls/issues"
    package = json.loads((copy / "editors/vscode/package.json").read_text())
    assert package["publisher"] == "agentls-team" and package["author"] == "Ada Lovelace, Alan Turing"
    assert package["repository"] == {
        "type": "git",
        "url": "https://example.org/team/agentls",
        "directory": "editors/vscode",
    }
    assert package["bugs"] == {"url": "https://example.org/team/agentls/issues"}
    assert "--allow-missing-repository" not in package["scripts"]["package"]
    agent = json.loads((copy / "registry/agentls/agent.json").read_text())
    assert agent["repository"] == "https://example.org/team/agentls"
    assert agent["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert agent["license_url"] == "https://example.org/team/agentls/blob/main/LICENSE"
    assert release("--check", "--root", str(copy)).returncode == 0

    # Back to unpublished: the files are exactly what the project holds now.
    shutil.copy2(REPO / "release.toml", copy / "release.toml")
    assert release("--fill", "--root", str(copy)).returncode == 0
    assert {name: (copy / name).read_text() for name in FILES[1:]} == before


@pytest.mark.parametrize(
    ("file", "edit"),
    [
        ("editors/vscode/package.json", lambda d: {**d, "homepage": "https://github.com/someone/agentls"}),
        ("editors/vscode/package.json", lambda d: {**d, "publisher": "someone"}),
        ("registry/agentls/agent.json", lambda d: {**d, "authors": ["Someone"]}),
    ],
)
def test_a_hand_edit_of_one_file_is_drift(copy: Path, file: str, edit: object) -> None:
    path = copy / file
    data = json.loads(path.read_text())
    path.write_text(json.dumps(edit(data), indent=2) + "\n")  # type: ignore[operator]
    done = release("--check", "--root", str(copy))
    assert done.returncode == 1 and f"{file}: differs from release.toml" in done.stderr


def test_a_hand_edit_of_pyproject_urls_is_drift(copy: Path) -> None:
    path = copy / "pyproject.toml"
    path.write_text(
        path.read_text().replace(
            "[project.scripts]", '[project.urls]\nHomepage = "https://x.org"\n\n[project.scripts]'
        )
    )
    done = release("--check", "--root", str(copy))
    assert done.returncode == 1 and "pyproject.toml: differs" in done.stderr


@pytest.mark.parametrize(
    ("release_toml", "says"),
    [
        ('[release]\nrepository = "http://example.org/a"\nauthors = []\npublisher = "p"\n', "https:// URL"),
        ('[release]\nrepository = "example.org/a"\nauthors = []\npublisher = "p"\n', "https:// URL"),
        (
            '[release]\nrepository = "https://example.org/a b"\nauthors = []\npublisher = "p"\n',
            "https:// URL",
        ),
        ('[release]\nrepository = ""\nauthors = "Ada"\npublisher = "p"\n', "list of names"),
        ('[release]\nrepository = ""\nauthors = [""]\npublisher = "p"\n', "list of names"),
        ('[release]\nrepository = ""\nauthors = []\npublisher = "Bad Name"\n', "publisher id"),
        ('[release]\nrepository = ""\nauthors = []\n', "publisher id"),
        ("[other]\n", "[release] table"),
        ("not toml [", "[release] table"),
    ],
)
def test_a_bad_release_toml_is_a_clear_error_and_writes_nothing(
    copy: Path, release_toml: str, says: str
) -> None:
    before = {name: (copy / name).read_text() for name in FILES[1:]}
    (copy / "release.toml").write_text(release_toml)
    done = release("--fill", "--root", str(copy))
    assert done.returncode == 1 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert {name: (copy / name).read_text() for name in FILES[1:]} == before


def test_a_registry_entry_the_registry_would_refuse_stops_the_release_before_building(copy: Path) -> None:
    path = copy / "registry/agentls/agent.json"
    data = json.loads(path.read_text())
    data["version"] = "9.9.9"
    data["distribution"]["uvx"]["args"] = []
    path.write_text(json.dumps(data, indent=2) + "\n")
    done = release("--root", str(copy), "--dist", str(copy / "dist"))
    assert done.returncode == 1, done.stdout
    assert "version '9.9.9' is not the package's" in done.stderr and 'args ["acp"]' in done.stderr
    assert not (copy / "dist").exists()


def test_the_script_runs_without_the_projects_environment() -> None:
    # Standard library only: the first step of a release on a fresh machine.
    done = subprocess.run(
        [sys.executable, "-I", str(REPO / "scripts" / "release.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
