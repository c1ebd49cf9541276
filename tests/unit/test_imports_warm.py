"""An agent opened with ``warm=True``: what a long-lived host loads ahead of the first prompt.

Run in a fresh process each, since the test process has long imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from core.config.loader import Layer
from core.llm import catalog, transport
from core.tools import schema
from tests.harness import open_test_agent

async def main(root: str, warm: bool) -> None:
    config = {"model": sys.argv[3], "snapshot": False}
    opened = await open_test_agent(
        Path(root), layers=[Layer("test", config, None)], data_dir=Path(root) / "data", warm=warm
    )
    app = opened.agent
    try:
        print(json.dumps({
            "decoders": "core.llm.lean" in sys.modules,
            "httpx": "httpx" in sys.modules,
            "tls context": transport._tls is not None,
            "catalog parsed": catalog.model_map.cache_info().currsize,
            "pool": asyncio.get_running_loop() in transport._clients,
            "schemas": schema._schema_text.cache_info().currsize,
            "tools": len({tool.Params for tool in opened.wiring.tools.all()}),
        }))
    finally:
        await app.close()

asyncio.run(main(sys.argv[1], sys.argv[2] == "warm"))
"""


def open_app(tmp_path: Path, mode: str, model: str, **keys: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("AGENTLS_")}
    env.update(
        keys,
        AGENTLS_CONFIG_DIR=str(tmp_path / "config"),
        AGENTLS_CACHE_DIR=str(tmp_path / "cache"),
        HOME=str(tmp_path / "home"),
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), mode, model],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def indexed(tmp_path: Path) -> dict[str, Any]:
    index: dict[str, Any] = json.loads((tmp_path / "cache" / "model-map-index.json").read_text())
    return index["entries"]


def test_warm_loads_the_catalog_the_pool_and_the_decoders(tmp_path: Path) -> None:
    # The key is never used: the warm-up connects nowhere.
    opened = open_app(tmp_path, "warm", "openai/gpt-4o", OPENAI_API_KEY="sk-never-sent")
    assert opened.pop("schemas") == opened.pop("tools") > 10  # each tool's parameter schema
    assert opened == {
        "decoders": True,
        "httpx": False,  # only webfetch uses it, when called
        "tls context": True,  # the CA bundle is loaded once, off the first prompt's path
        "catalog parsed": 1,  # the first start on this machine: the entry is not in the index yet
        "pool": True,
    }
    assert indexed(tmp_path)["openai"]["gpt-4o"]["max_input_tokens"] > 0
    assert not (tmp_path / "cache" / "tool-schemas.json").exists()  # kept on disk by the console script only


def test_a_model_without_a_key_is_still_looked_up_but_gets_no_tls_context(tmp_path: Path) -> None:
    # The prompt will report the missing key before it connects anywhere.
    opened = open_app(tmp_path, "warm", "openai/gpt-4o")
    assert (opened["catalog parsed"], opened["tls context"]) == (1, False)
    assert indexed(tmp_path)["openai"]["gpt-4o"]["max_input_tokens"] > 0


def test_a_later_warm_start_reads_the_index_not_the_map(tmp_path: Path) -> None:
    open_app(tmp_path, "warm", "openai/gpt-4o")
    assert open_app(tmp_path, "warm", "openai/gpt-4o")["catalog parsed"] == 0
    assert open_app(tmp_path, "warm", "openai/gpt-4o-mini")["catalog parsed"] == 1  # a new model
    assert set(indexed(tmp_path)["openai"]) >= {"gpt-4o", "gpt-4o-mini"}


def test_a_cold_open_loads_none_of_it(tmp_path: Path) -> None:
    opened = open_app(tmp_path, "cold", "openai/gpt-4o")
    assert opened.pop("tools") > 10
    assert opened == {
        "decoders": False,
        "httpx": False,
        "tls context": False,  # a one-shot run makes it only for an HTTPS model, during the TCP connect
        "catalog parsed": 0,
        "pool": False,
        "schemas": 0,
    }
    assert not (tmp_path / "cache").exists()
