"""The policy built from the ``sandbox`` config: writable roots, read-only carve-outs, network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.config.schema import Config, SandboxConfig
from core.sandbox.policy import build_policy


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    (home / ".npm").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(home / ".config" / "agentls"))
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(home / ".local" / "share" / "agentls"))
    monkeypatch.setenv("AGENTLS_CACHE_DIR", str(home / ".cache" / "agentls"))
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name in (".git", ".agentls", "src"):
        (root / name).mkdir(parents=True)
    for name in (".env", ".env.local", "README.md"):
        (root / name).write_text("x")
    return root


def test_workspace_write_opens_the_project_tmp_and_caches(home: Path, project: Path, tmp_path: Path) -> None:
    tmp = tmp_path / "private"
    tmp.mkdir()
    policy = build_policy(SandboxConfig(), [project], tmp)
    assert set(policy.writable) == {project, tmp, home / ".cache", home / ".npm"}
    assert set(policy.read_only) == {
        project / ".git",
        project / ".agentls",
        project / ".env",
        project / ".env.local",
    }
    assert not policy.network and policy.tmpdir == tmp


def test_agentls_own_folders_stay_read_only_inside_a_writable_root(
    home: Path, project: Path, tmp_path: Path
) -> None:
    (home / ".cache" / "agentls").mkdir()
    (home / ".config" / "agentls").mkdir(parents=True)
    policy = build_policy(SandboxConfig(writable=["~"]), [project], tmp_path)
    assert home in policy.writable
    assert home / ".cache" / "agentls" in policy.read_only
    assert home / ".config" / "agentls" in policy.hidden  # it holds provider keys: not even readable


def test_credential_folders_and_files_are_hidden(home: Path, project: Path, tmp_path: Path) -> None:
    for folder in (".ssh", ".aws", ".config/gh"):
        (home / folder).mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y")
    (home / ".local" / "share" / "agentls").mkdir(parents=True)
    policy = build_policy(SandboxConfig(), [project], tmp_path)
    assert set(policy.hidden) == {
        home / ".ssh",
        home / ".aws",
        home / ".config" / "gh",
        home / ".netrc",
    }
    assert home / ".local" / "share" / "agentls" not in policy.hidden  # full outputs are read there
    shown = build_policy(SandboxConfig(readable=["~/.netrc"], writable=["~/.aws"]), [project], tmp_path)
    assert home / ".netrc" not in shown.hidden and home / ".aws" not in shown.hidden
    inside = build_policy(SandboxConfig(), [home / ".ssh"], tmp_path)  # agentls opened in ~/.ssh
    assert home / ".ssh" not in inside.hidden
    assert build_policy(SandboxConfig(mode="read-only"), [project], tmp_path).hidden == policy.hidden


def test_a_writable_entry_lifts_a_carve_out_and_adds_folders(
    home: Path, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    config = SandboxConfig(writable=[".git", str(other), "~/missing"])
    policy = build_policy(config, [project], tmp_path / "project" / "src")
    assert project / ".git" not in policy.read_only and project / ".git" in policy.writable
    assert other in policy.writable
    assert all(p.exists() for p in policy.writable)  # a missing folder is not bound


def test_read_only_keeps_only_the_temp_dir(home: Path, project: Path, tmp_path: Path) -> None:
    tmp = tmp_path / "private"
    tmp.mkdir()
    policy = build_policy(SandboxConfig(mode="read-only"), [project], tmp)
    assert policy.writable == (tmp,)
    assert policy.read_only == ()


def test_parents_come_before_children(home: Path, project: Path, tmp_path: Path) -> None:
    policy = build_policy(SandboxConfig(writable=["src"]), [project], tmp_path)
    order = list(policy.writable)
    assert order.index(project) < order.index(project / "src")


@pytest.mark.parametrize(
    ("network", "enabled"),
    [({}, False), ({"allow": []}, False), ({"allow": ["*"]}, True)],
)
def test_network_is_all_or_nothing(network: dict[str, list[str]], enabled: bool, tmp_path: Path) -> None:
    config = Config.model_validate({"sandbox": {"network": network}})
    assert build_policy(config.sandbox, [tmp_path], tmp_path).network is enabled


@pytest.mark.parametrize(
    "bad",
    [
        {"mode": "danger"},
        {"network": {"allow": ["https://example.com"]}},
        {"network": {"allow": ["*", "example.com"]}},
        {"network": {"allow": ["exa mple.com"]}},
        {"writable": "src"},
        {"env": {"pass": "GITHUB_TOKEN"}},
    ],
)
def test_a_bad_sandbox_config_is_refused_with_its_reason(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError) as raised:
        Config.model_validate({"sandbox": bad})
    assert "sandbox" in str(raised.value)


def test_a_bad_host_is_named() -> None:
    with pytest.raises(
        ValidationError, match=re.escape("not a host name or *.domain pattern: https://x.org")
    ):
        Config.model_validate({"sandbox": {"network": {"allow": ["pypi.org", "https://x.org"]}}})
    with pytest.raises(ValidationError, match=re.escape('"*" allows every host: give it alone')):
        Config.model_validate({"sandbox": {"network": {"allow": ["*", "pypi.org"]}}})


def test_hosts_go_to_the_proxy(tmp_path: Path) -> None:
    config = Config.model_validate(
        {"sandbox": {"network": {"allow": ["pypi.org", "*.npmjs.org", "10.0.0.1"]}}}
    )
    policy = build_policy(config.sandbox, [tmp_path], tmp_path)
    assert not policy.network and policy.hosts == ("pypi.org", "*.npmjs.org", "10.0.0.1")


def test_env_pass_is_read_from_its_json_name() -> None:
    config = Config.model_validate({"sandbox": {"env": {"pass": ["NPM_TOKEN"]}}})
    assert config.sandbox.env.pass_ == ["NPM_TOKEN"]
    assert config.sandbox.mode == "workspace-write"
