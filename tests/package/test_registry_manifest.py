"""The ACP Registry entry (registry/agentls/): the registry's documented fields, in step with the package.

The registry (agent.schema.json and CONTRIBUTING of agentclientprotocol/registry) asks for: ``id``
(lowercase letters, digits and hyphens, starting with a letter; also the folder name), ``name``,
``version`` (semantic), ``description``, ``distribution`` (at least one of ``binary``, ``npx``, ``uvx``;
a package distribution has ``package`` and optionally ``args`` and ``env`` of strings, nothing else),
``license_url`` (required of every agent), URLs for ``repository``/``website``/``license_url``, and an
``icon.svg`` of 16×16 that is monochrome: ``fill``/``stroke`` only ``currentColor`` or ``none``.
"""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from core import __version__

REPO = Path(__file__).resolve().parents[2]
ENTRY = REPO / "registry" / "agentls"
REQUIRED = ("id", "name", "version", "description", "distribution", "license_url")
KNOWN = {*REQUIRED, "repository", "website", "authors", "license", "icon"}
PACKAGE_KEYS = {"package", "args", "env"}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ENTRY / "agent.json").read_text())
    return data


def project() -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return data


def test_the_documented_fields_are_there_and_well_formed(manifest: dict[str, Any]) -> None:
    missing = [k for k in REQUIRED if k not in manifest]
    assert not missing, f"required fields missing: {missing}"
    assert not set(manifest) - KNOWN, f"fields the registry does not document: {set(manifest) - KNOWN}"
    assert re.fullmatch(r"[a-z][a-z0-9-]*", manifest["id"])
    assert manifest["id"] == ENTRY.name  # the folder name is the id
    assert re.match(r"^[0-9]+\.[0-9]+\.[0-9]+$", manifest["version"])
    for key in ("name", "description"):
        assert isinstance(manifest[key], str) and manifest[key].strip()
    for key in ("repository", "website", "license_url"):
        if key in manifest:
            url = urlparse(manifest[key])
            assert url.scheme == "https" and url.netloc, f"{key} is not a URL: {manifest[key]!r}"
    assert all(isinstance(a, str) and a for a in manifest.get("authors", []))
    assert "icon" not in manifest  # the registry's build sets it from icon.svg


def test_the_distribution_is_a_pinned_uvx_package(manifest: dict[str, Any]) -> None:
    dist = manifest["distribution"]
    assert isinstance(dist, dict) and dist and set(dist) <= {"binary", "npx", "uvx"}
    uvx = dist["uvx"]
    assert set(uvx) <= PACKAGE_KEYS and isinstance(uvx["package"], str) and uvx["package"]
    assert all(isinstance(a, str) for a in uvx.get("args", []))
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in uvx.get("env", {}).items())
    assert uvx["args"] == ["acp"]  # uvx runs the package's `agentls` script: `agentls acp`


def test_the_entry_is_in_step_with_the_package(manifest: dict[str, Any]) -> None:
    meta = project()
    assert manifest["version"] == __version__
    assert manifest["distribution"]["uvx"]["package"] == f"{meta['name']}=={__version__}"
    assert "agentls" in meta["scripts"]  # the command uvx runs
    assert manifest["license"] == meta["license"]
    # The repository, authors and license URL come from release.toml (tests/package/test_release.py).
    assert manifest.get("repository") == (meta.get("urls") or {}).get("Repository")


def test_the_icon_is_a_16px_monochrome_svg() -> None:
    root = ET.parse(ENTRY / "icon.svg").getroot()
    assert root.tag == f"{SVG}svg"
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("16", "16", "0 0 16 16")
    elements = list(root.iter())
    assert len(elements) > 1, "the icon draws nothing"
    for element in elements:
        assert element.tag.removeprefix(SVG) not in ("image", "script", "foreignObject", "style")
        for attribute in ("fill", "stroke", "color", "stop-color"):
            value = element.get(attribute)
            assert value in (None, "currentColor", "none"), f"{element.tag} {attribute}={value!r}"
        assert "style" not in element.attrib, "colours must be attributes the check can read"
