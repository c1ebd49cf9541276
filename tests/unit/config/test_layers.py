"""Layer discovery and merge order: user < project (farther < nearer) < env files < extra < switches."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.config.loader import Layer, discover_layers, load_config, resolve
from core.errors import ConfigError


def write(path: Path, data: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A worktree with a nested working directory: (worktree, directory)."""
    root = tmp_path / "repo"
    directory = root / "pkg" / "sub"
    directory.mkdir(parents=True)
    return root.resolve(), directory.resolve()


def test_user_then_project_farther_then_nearer(isolated_env: Path, tree: tuple[Path, Path]) -> None:
    root, directory = tree
    write(isolated_env / "agentls.json", {"model": "user/m", "small_model": "user/s", "default_agent": "u"})
    write(root / "agentls.json", {"model": "root/m", "small_model": "root/s"})
    write(root / "pkg" / ".agentls" / "agentls.jsonc", '{"model": "pkg/m", // nearer\n}')

    resolved = load_config(directory, root)

    assert resolved.config.model == "pkg/m"
    assert resolved.config.small_model == "root/s"
    assert resolved.config.default_agent == "u"
    assert resolved.sources["model"] == f"project {root / 'pkg' / '.agentls' / 'agentls.jsonc'}"
    assert resolved.sources["small_model"] == f"project {root / 'agentls.json'}"
    assert resolved.sources["default_agent"] == f"user {isolated_env / 'agentls.json'}"


def test_discover_order_lowest_first(isolated_env: Path, tree: tuple[Path, Path]) -> None:
    root, directory = tree
    files = [
        write(isolated_env / "agentls.json", {}),
        write(root / "agentls.json", {}),
        write(root / ".agentls" / "agentls.json", {}),
        write(directory / "agentls.jsonc", "{}"),
    ]
    layers = discover_layers(directory, root)
    assert [layer.path for layer in layers] == files


def test_files_above_the_worktree_are_ignored(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    root, directory = tree
    write(tmp_path / "agentls.json", {"model": "outside/m"})
    assert load_config(directory, root).config.model is None


def test_directory_outside_worktree_reads_only_itself(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "inner"
    write(tmp_path / "elsewhere" / "agentls.json", {"model": "parent/m"})
    write(elsewhere / "agentls.json", {"small_model": "inner/s"})
    resolved = load_config(elsewhere, tmp_path / "repo-that-does-not-contain-it")
    assert resolved.config.model is None
    assert resolved.config.small_model == "inner/s"


def test_worktree_defaults_to_git_top_level(tmp_path: Path) -> None:
    root = tmp_path / "gitrepo"
    directory = root / "a" / "b"
    directory.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / "agentls.json", {"model": "git/m"})
    assert load_config(directory).config.model == "git/m"


def test_agentls_config_and_content_on_top(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, directory = tree
    write(root / "agentls.json", {"model": "project/m", "small_model": "project/s", "default_agent": "p"})
    explicit = write(tmp_path / "explicit.jsonc", '{"small_model": "explicit/s", "default_agent": "e",}')
    monkeypatch.setenv("AGENTLS_CONFIG", str(explicit))
    monkeypatch.setenv("AGENTLS_CONFIG_CONTENT", '{"default_agent": "content"}')

    resolved = load_config(directory, root)

    assert resolved.config.model == "project/m"
    assert resolved.config.small_model == "explicit/s"
    assert resolved.config.default_agent == "content"
    assert resolved.sources["small_model"] == f"AGENTLS_CONFIG {explicit.resolve()}"
    assert resolved.sources["default_agent"] == "AGENTLS_CONFIG_CONTENT"


def test_extra_layers_sit_above_files_and_below_switches(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, directory = tree
    write(root / "agentls.json", {"model": "project/m", "compaction": {"auto": True, "tail_turns": 5}})
    monkeypatch.setenv("AGENTLS_DISABLE_AUTOCOMPACT", "1")
    editor = Layer(
        "initializationOptions", {"model": "editor/m", "compaction": {"auto": True, "tail_turns": 3}}
    )

    resolved = load_config(directory, root, extra_layers=[editor])

    assert resolved.config.model == "editor/m"
    assert resolved.config.compaction.tail_turns == 3
    assert resolved.config.compaction.auto is False
    assert resolved.sources["compaction.auto"] == "environment"


@pytest.mark.parametrize(("value", "expected"), [("1", False), ("true", False), ("YES", False), ("0", True)])
def test_disable_switches(
    value: str, expected: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_DISABLE_AUTOCOMPACT", value)
    monkeypatch.setenv("AGENTLS_DISABLE_PRUNE", value)
    compaction = load_config(tmp_path, tmp_path).config.compaction
    assert compaction.auto is expected
    assert compaction.prune is expected


def test_defaults_without_any_layer(tmp_path: Path) -> None:
    resolved = load_config(tmp_path, tmp_path)
    config = resolved.config
    assert (config.compaction.auto, config.compaction.prune, config.compaction.tail_turns) == (True, True, 2)
    assert (config.tool_output.max_lines, config.tool_output.max_bytes) == (2000, 51200)
    assert config.snapshot.enabled is True
    assert config.retry.max_attempts == 10
    assert resolved.sources == {}
    assert resolved.warnings == []


def test_snapshot_bare_bool() -> None:
    assert resolve([Layer("a", {"snapshot": False})]).config.snapshot.enabled is False
    nested = resolve([Layer("a", {"snapshot": {"keep_days": 3}})]).config.snapshot
    assert (nested.enabled, nested.keep_days) == (True, 3)


def test_deep_merge_of_providers() -> None:
    base = {"provider": {"local": {"litellm_provider": "openai", "options": {"api_base": "http://a"}}}}
    top = {
        "provider": {
            "local": {"options": {"api_key": "k"}, "models": {"m": {"limit": {"context": 10, "output": 5}}}}
        }
    }
    config = resolve([Layer("a", base), Layer("b", top)]).config
    local = config.provider["local"]
    assert local.litellm_provider == "openai"
    assert (local.options.api_base, local.options.api_key) == ("http://a", "k")
    assert local.models["m"].limit is not None
    assert local.models["m"].limit.context == 10


def test_lists_are_replaced_but_instructions_concatenate() -> None:
    layers = [
        Layer(
            "a", {"instructions": ["a.md", "b.md"], "mcp": {"x": {"type": "local", "command": ["one", "1"]}}}
        ),
        Layer("b", {"instructions": ["b.md", "c.md"], "mcp": {"x": {"command": ["two"]}}}),
    ]
    resolved = resolve(layers)
    assert resolved.config.instructions == ["a.md", "b.md", "c.md"]
    server = resolved.config.mcp["x"]
    assert server.type == "local"
    assert server.command == ["two"]
    assert resolved.sources["instructions[2]"] == "b"
    assert resolved.sources["instructions[0]"] == "a"


def test_a_scalar_replacing_a_mapping_drops_its_old_sources() -> None:
    resolved = resolve([Layer("a", {"snapshot": {"keep_days": 3}}), Layer("b", {"snapshot": False})])
    assert resolved.sources == {"snapshot": "b"}
    assert resolved.config.snapshot.keep_days == 7


def test_unknown_keys_are_kept_and_warned_with_path_and_layer() -> None:
    data = {
        "$schema": "https://example/schema.json",
        "modle": "typo/m",
        "provider": {
            "p": {
                "options": {"api_base": "http://x", "organization": "passthrough"},
                # modalities is read (images and PDFs the model takes): no warning for it
                "models": {"m": {"x": 1, "modalities": {"input": ["text", "image"]}}},
            }
        },
        "agent": {"build": {"colour": "red"}},
    }
    resolved = resolve([Layer("project f.json", data)])
    assert resolved.config.model_extra is not None
    assert resolved.config.model_extra["modle"] == "typo/m"
    assert resolved.config.provider["p"].options.model_extra == {"organization": "passthrough"}
    modalities = resolved.config.provider["p"].models["m"].modalities
    assert modalities is not None and modalities.input == ["text", "image"]
    assert sorted(resolved.warnings) == [
        "project f.json: unknown key agent.build.colour is not used (check the spelling)",
        "project f.json: unknown key modle is not used (check the spelling)",
        "project f.json: unknown key provider.p.models.m.x is not used (check the spelling)",
    ]


def test_discover_puts_env_switches_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "agentls.json", {"compaction": {"prune": True}})
    monkeypatch.setenv("AGENTLS_DISABLE_PRUNE", "on")
    layers = discover_layers(tmp_path, tmp_path)
    assert [layer.name for layer in layers] == [f"project {tmp_path / 'agentls.json'}", "environment"]
    assert layers[-1].data == {"compaction": {"prune": False}}
    assert resolve(layers).config.compaction.prune is False


def test_inline_content_file_substitution_is_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "prompt.txt").write_text("hello")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTLS_CONFIG_CONTENT", '{"agent": {"a": {"prompt": "{file:prompt.txt}"}}}')
    assert load_config(tmp_path, tmp_path).config.agent["a"].prompt == "hello"


def test_extra_layer_that_is_not_an_object_is_rejected(tmp_path: Path) -> None:
    bad = Layer("initializationOptions.config", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^initializationOptions.config: the config must be a JSON object"):
        load_config(tmp_path, tmp_path, extra_layers=[bad])
