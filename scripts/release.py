"""The release steps, from the one source of publishing metadata (``release.toml``).

``scripts/release`` writes the metadata into the three files that carry it (pyproject.toml,
editors/vscode/package.json, registry/agentls/agent.json), checks the registry entry as the ACP
Registry does, and builds the wheel and the .vsix into ``dist/``. Nothing is uploaded.
``--check`` only reports files that say something else than release.toml (the tests run it, so a
hand edit of one file fails the test command); ``--fill`` only writes them. ``--root`` works on
another copy of the project (the tests use a temporary one).

While ``repository`` is empty the project is unpublished: no URL is written anywhere, the registry
entry's ``license_url`` is the SPDX text of the MIT license, and vsce is told that the repository
is missing on purpose (``--allow-missing-repository``); once a repository is named, the flag goes.
Standard library only: it runs before any environment exists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = Path("pyproject.toml")
PACKAGE = Path("editors/vscode/package.json")
AGENT = Path("registry/agentls/agent.json")
SPDX_MIT = "https://spdx.org/licenses/MIT.html"
MISSING_REPOSITORY = "--allow-missing-repository"
_URL = re.compile(r"https://[A-Za-z0-9.-]+(/[A-Za-z0-9._~/-]*)?")
_PUBLISHER = re.compile(r"[a-z0-9][a-z0-9-]*")
_AGENT_ORDER = ("id", "name", "version", "description", "repository", "authors", "license", "license_url")


class ReleaseError(Exception):
    """A release step that cannot go on; the message says what to fix."""


@dataclass(frozen=True)
class Release:
    """What release.toml says."""

    repository: str
    authors: tuple[str, ...]
    publisher: str

    @property
    def published(self) -> bool:
        return bool(self.repository)


def load(root: Path) -> Release:
    """release.toml of ``root``, checked (ReleaseError naming the bad value)."""
    path = root / "release.toml"
    try:
        table = tomllib.loads(path.read_text())["release"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise ReleaseError(f"{path}: cannot read its [release] table ({exc})") from None
    repository, authors, publisher = (
        table.get("repository", ""),
        table.get("authors", []),
        table.get("publisher"),
    )
    if not isinstance(repository, str) or (repository and not _URL.fullmatch(repository.rstrip("/"))):
        raise ReleaseError(f'{path}: repository must be "" or an https:// URL, not {repository!r}')
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        raise ReleaseError(f"{path}: authors must be a list of names, not {authors!r}")
    if not isinstance(publisher, str) or not _PUBLISHER.fullmatch(publisher):
        raise ReleaseError(
            f"{path}: publisher must be a VS Code publisher id (a-z, 0-9, -), not {publisher!r}"
        )
    return Release(repository.rstrip("/"), tuple(a.strip() for a in authors), publisher)


# --- what each file says ------------------------------------------------------------------------


def pyproject_text(text: str, release: Release) -> str:
    """pyproject.toml with [project]'s authors and the [project.urls] table as release.toml says."""
    names = ", ".join(f"{{ name = {json.dumps(a, ensure_ascii=False)} }}" for a in release.authors)
    text, count = re.subn(r"(?m)^authors = \[.*\]$", f"authors = [{names}]", text, count=1)
    if count != 1:
        raise ReleaseError("pyproject.toml: [project] needs its authors on one line (authors = [...])")
    text = re.sub(r"(?ms)^\[project\.urls\]\n.*?(?=^\[)", "", text)
    if release.published:
        r = release.repository
        urls = (
            "[project.urls]\n# Written by scripts/release from release.toml.\n"
            f'Homepage = "{r}"\nDocumentation = "{r}#readme"\nRepository = "{r}"\nIssues = "{r}/issues"\n\n'
        )
        if "[project.scripts]\n" not in text:
            raise ReleaseError("pyproject.toml: no [project.scripts] table to put [project.urls] before")
        text = text.replace("[project.scripts]\n", urls + "[project.scripts]\n", 1)
    return text


def package_json(data: dict[str, Any], release: Release) -> dict[str, Any]:
    """The extension's package.json with the publisher, author and repository links of the release."""
    r = release.repository
    out = dict(data)
    out["publisher"] = release.publisher
    out = _placed(out, "author", ", ".join(release.authors) or None, after="publisher")
    out = _placed(
        out, "repository", {"type": "git", "url": r, "directory": "editors/vscode"} if r else None, "license"
    )
    out = _placed(out, "homepage", f"{r}#readme" if r else None, after="repository")
    out = _placed(out, "bugs", {"url": f"{r}/issues"} if r else None, after="homepage")
    scripts = dict(out.get("scripts", {}))
    package = str(scripts.get("package", ""))
    if "vsce package" in package:
        package = package.replace(f" {MISSING_REPOSITORY}", "")
        if not r:
            package = package.replace("vsce package", f"vsce package {MISSING_REPOSITORY}", 1)
        scripts["package"] = package
        out["scripts"] = scripts
    return out


def agent_json(data: dict[str, Any], release: Release) -> dict[str, Any]:
    """The ACP Registry entry with the release's authors, repository and license URL."""
    r = release.repository
    values = {
        **data,
        "repository": r or None,
        "authors": list(release.authors) or None,
        "license_url": f"{r}/blob/main/LICENSE" if r else SPDX_MIT,
    }
    ordered = {k: values[k] for k in _AGENT_ORDER if values.get(k) is not None}
    ordered.update({k: v for k, v in values.items() if k not in ordered and v is not None})
    return ordered


def _placed(data: dict[str, Any], key: str, value: Any, after: str) -> dict[str, Any]:
    """``data`` with ``key`` set to ``value`` (dropped when None), a new key placed after ``after``."""
    if value is None:
        return {k: v for k, v in data.items() if k != key}
    if key in data or after not in data:
        return {**data, key: value}
    out: dict[str, Any] = {}
    for k, v in data.items():
        out[k] = v
        if k == after:
            out[key] = value
    return out


def expected(root: Path, release: Release) -> dict[Path, str]:
    """Each metadata file's text as release.toml says it should be."""
    package = json.loads((root / PACKAGE).read_text())
    agent = json.loads((root / AGENT).read_text())
    return {
        PYPROJECT: pyproject_text((root / PYPROJECT).read_text(), release),
        PACKAGE: _json_text(package_json(package, release)),
        AGENT: _json_text(agent_json(agent, release)),
    }


def _json_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def drift(root: Path) -> list[Path]:
    """The metadata files that say something else than release.toml."""
    return [p for p, text in expected(root, load(root)).items() if (root / p).read_text() != text]


def fill(root: Path) -> list[Path]:
    """Write release.toml's metadata into the files; returns those that changed."""
    changed = []
    for path, text in expected(root, load(root)).items():
        if (root / path).read_text() != text:
            (root / path).write_text(text)
            changed.append(path)
    return changed


# --- the registry entry, as the ACP Registry checks it -------------------------------------------


def registry_problems(root: Path) -> list[str]:
    """What the ACP Registry would refuse in registry/agentls (its documented fields), and any
    disagreement with the package version."""
    data = json.loads((root / AGENT).read_text())
    problems = [
        f"{k} is missing"
        for k in ("id", "name", "version", "description", "distribution", "license_url")
        if k not in data
    ]
    version = _version(root)
    if data.get("id") != AGENT.parent.name or not re.fullmatch(r"[a-z][a-z0-9-]*", str(data.get("id"))):
        problems.append(f"id must be the folder name {AGENT.parent.name!r} (a-z, 0-9, -)")
    if data.get("version") != version:
        problems.append(f"version {data.get('version')!r} is not the package's {version!r}")
    for key in ("repository", "website", "license_url"):
        if key in data and not _URL.fullmatch(str(data[key]).split("#")[0]):
            problems.append(f"{key} is not an https URL: {data[key]!r}")
    if not all(isinstance(a, str) and a for a in data.get("authors", [])):
        problems.append("authors must be names")
    uvx = data.get("distribution", {}).get("uvx", {})
    if uvx.get("package") != f"agentls=={version}" or uvx.get("args") != ["acp"]:
        problems.append(f'distribution.uvx must run "agentls=={version}" with args ["acp"]')
    if not (root / AGENT.parent / "icon.svg").is_file():
        problems.append("icon.svg is missing")
    return problems


def _version(root: Path) -> str:
    found = re.search(r'(?m)^__version__ = "([^"]+)"', (root / "core" / "__init__.py").read_text())
    if found is None:
        raise ReleaseError("core/__init__.py has no __version__")
    return found[1]


# --- building ------------------------------------------------------------------------------------


def build(root: Path, dist: Path, release: Release) -> list[Path]:
    """The wheel and the .vsix (carrying that wheel) in ``dist``."""
    dist.mkdir(parents=True, exist_ok=True)
    version = _version(root)
    for old in dist.glob(f"agentls-{version}*"):
        old.unlink()
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(root)], root)
    (wheel,) = dist.glob(f"agentls-{version}-*.whl")
    extension = root / "editors" / "vscode"
    _npm_ci(extension)
    server = extension / "server"
    server.mkdir(exist_ok=True)
    for old in server.glob("agentls-*.whl"):
        old.unlink()
    shutil.copy2(wheel, server / wheel.name)
    _run(["node", "esbuild.mjs", "--production"], extension)
    vsix = dist / f"agentls-{version}.vsix"
    flags = [] if release.published else [MISSING_REPOSITORY]
    _run([str(extension / "node_modules" / ".bin" / "vsce"), "package", *flags, "-o", str(vsix)], extension)
    return [wheel, vsix]


def _npm_ci(extension: Path) -> None:
    # The same stamp as the tests' build: node_modules that match the lock file are kept.
    lock = extension / "package-lock.json"
    stamp = extension / "node_modules" / ".agentls-lock-sha"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not (stamp.is_file() and stamp.read_text() == digest):
        _run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], extension)
        stamp.write_text(digest)


def _run(cmd: list[str], cwd: Path) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise ReleaseError(f"{cmd[0]} is not installed (node 22+ for vsce: scripts/tools)") from None
    if done.returncode != 0:
        raise ReleaseError(
            f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )


# --- the command ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/release", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check", action="store_true", help="only report files that disagree with release.toml"
    )
    mode.add_argument("--fill", action="store_true", help="only write release.toml's metadata into the files")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project copy to work on")
    parser.add_argument("--dist", type=Path, help="where the wheel and .vsix go (default: ROOT/dist)")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    try:
        release = load(root)
        if args.check:
            stale = drift(root)
            for path in stale:
                print(f"{path}: differs from release.toml (run scripts/release --fill)", file=sys.stderr)
            return 1 if stale else 0
        for path in fill(root):
            print(f"wrote {path}")
        if args.fill:
            return 0
        problems = registry_problems(root)
        if problems:
            raise ReleaseError("registry/agentls/agent.json: " + "; ".join(problems))
        for artifact in build(root, args.dist or root / "dist", release):
            print(f"built {artifact}")
    except ReleaseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    if not release.published:
        print("release.toml names no repository: these builds are for local use; nothing was uploaded.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
