"""The ``.vsix`` the test command builds is what Open VSX and the Marketplace take: what is inside it.

A ``.vsix`` is a zip: ``extension.vsixmanifest`` (what the galleries read: publisher, icon, license,
repository, categories) and the extension under ``extension/``.
"""

from __future__ import annotations

import json
import struct
import tomllib
import zipfile
from functools import cache
from typing import Any
from xml.etree import ElementTree

import pytest

from core import __version__
from tests.tools import ROOT
from tests.vscode.build import EXTENSION, vsix

pytestmark = pytest.mark.slow
NS = {"v": "http://schemas.microsoft.com/developer/vsx-schema/2011"}


@cache
def contents() -> tuple[set[str], dict[str, Any], ElementTree.Element, zipfile.ZipFile]:
    archive = zipfile.ZipFile(vsix())
    names = set(archive.namelist())
    package = json.loads(archive.read("extension/package.json"))
    manifest = ElementTree.fromstring(archive.read("extension.vsixmanifest"))
    return names, package, manifest, archive


def test_the_vsix_carries_readme_changelog_license_icon_and_the_server_wheel() -> None:
    names, package, _, archive = contents()
    wanted = {
        "extension/package.json",
        "extension/readme.md",  # vsce's names for README.md and CHANGELOG.md
        "extension/changelog.md",
        "extension/dist/extension.js",
        "extension/dist/webview.js",
        "extension/media/icon.png",
        f"extension/server/agentls-{__version__}-py3-none-any.whl",
    }
    assert wanted <= names, sorted(wanted - names)
    assert {"extension/LICENSE", "extension/LICENSE.txt"} & names, sorted(names)
    # Nothing of the build: sources, tests, node_modules, the lock file.
    build = ("extension/src/", "extension/test/", "extension/node_modules/")
    leaked = [n for n in names if n.startswith(build)]
    assert leaked == []
    assert "extension/package-lock.json" not in names
    assert [n for n in names if n.endswith("icon-marketplace.svg")] == []  # the icon's source
    assert package["version"] == __version__  # the extension and the wheel it carries have one version
    assert archive.read("extension/changelog.md").decode().count(f"## {__version__}") == 1


def test_the_icon_is_a_128_pixel_png() -> None:
    _, package, _, archive = contents()
    data = archive.read(f"extension/{package['icon']}")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (128, 128)


def test_the_manifest_has_what_open_vsx_shows() -> None:
    _, package, manifest, _ = contents()
    identity = manifest.find("v:Metadata/v:Identity", NS)
    assert identity is not None
    assert identity.get("Publisher") == package["publisher"] == "agentls"
    assert identity.get("Version") == __version__
    assert manifest.findtext("v:Metadata/v:Categories", namespaces=NS) == "AI,Chat,Programming Languages"
    assets = {a.get("Type"): a.get("Path") for a in manifest.iterfind("v:Assets/v:Asset", NS)}
    assert assets["Microsoft.VisualStudio.Services.Icons.Default"] == "extension/media/icon.png"
    license_file = assets["Microsoft.VisualStudio.Services.Content.License"]
    assert license_file in ("extension/LICENSE", "extension/LICENSE.txt")
    assert assets["Microsoft.VisualStudio.Services.Content.Changelog"] == "extension/changelog.md"
    assert assets["Microsoft.VisualStudio.Services.Content.Details"] == "extension/readme.md"
    properties = {
        p.get("Id"): p.get("Value") for p in manifest.iterfind("v:Metadata/v:Properties/v:Property", NS)
    }
    url = project_url()
    if url:
        source = properties["Microsoft.VisualStudio.Services.Links.Source"]
        assert source in (url, url + ".git")
    else:  # unpublished (release.toml): the gallery shows no invented source link
        assert "Microsoft.VisualStudio.Services.Links.Source" not in properties
    assert package["license"] == "MIT"
    assert (EXTENSION / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()


def project_url() -> str:
    """THE project URL: release.toml's ``repository`` ("" while agentls is unpublished)."""
    url: str = tomllib.loads((ROOT / "release.toml").read_text())["release"]["repository"]
    return url


def test_every_place_that_names_the_project_url_names_the_same_one() -> None:
    url = project_url()
    package = json.loads((EXTENSION / "package.json").read_text())
    agent = json.loads((ROOT / "registry" / "agentls" / "agent.json").read_text())
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("urls", {})
    named = [
        package.get("repository", {}).get("url"),
        package.get("homepage"),
        package.get("bugs", {}).get("url"),
        agent.get("repository"),
        *urls.values(),
    ]
    if not url:  # unpublished: nothing names a repository
        assert [u for u in named if u is not None] == []
        return
    assert [u for u in named if not (u == url or u.startswith(url + "/") or u.startswith(url + "#"))] == []


def test_the_package_script_needs_an_escape_hatch_only_while_unpublished() -> None:
    script = json.loads((EXTENSION / "package.json").read_text())["scripts"]["package"]
    assert ("--allow-missing-repository" in script) is not project_url()
    assert "--skip-license" not in script


def test_the_extension_activates_on_use_only() -> None:
    package = json.loads((EXTENSION / "package.json").read_text())
    assert package["activationEvents"] == ["onView:agentls.chat"]  # commands activate it implicitly


def test_untrusted_workspaces_restrict_what_names_a_program_and_every_setting_has_a_scope() -> None:
    package = json.loads((EXTENSION / "package.json").read_text())
    trust = package["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited"
    assert {"agentls.server.path", "agentls.server.args"} <= set(trust["restrictedConfigurations"])
    # Where the agent runs: a workspace's own value could send its turns to a host elsewhere.
    where = {"agentls.host", "agentls.hostAddress", "agentls.hostTokenFile"}
    assert where <= set(trust["restrictedConfigurations"])
    properties = package["contributes"]["configuration"]["properties"]
    scopes = {name: spec.get("scope") for name, spec in properties.items()}
    allowed = {"application", "machine", "machine-overridable", "window", "resource", "language-overridable"}
    assert [name for name, scope in scopes.items() if scope not in allowed] == []
    assert scopes["agentls.server.path"] == scopes["agentls.server.args"] == "machine-overridable"
    # Secrets never in settings: the first-run key lives in SecretStorage; a remote host's token is
    # named by the path of its file (agentls.hostTokenFile), never held in a setting.
    secretive = [name for name in properties if "key" in name.lower() or "token" in name.lower()]
    assert secretive == ["agentls.hostTokenFile"]
    assert "never sent in an LSP message" in properties["agentls.hostTokenFile"]["markdownDescription"]
