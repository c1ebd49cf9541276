"""The variables agentls sets for its own libraries (tiktoken's folder, litellm's offline switches)
hold in its process only: a command a tool runs gets the user's values, or none.

Each case runs in a fresh process: these variables are the whole process's, and a test process
has long set them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.context.encoding import tokenizer_dir

ROOT = Path(__file__).resolve().parents[3]
NAMES = (
    "TIKTOKEN_CACHE_DIR",
    "CUSTOM_TIKTOKEN_CACHE_DIR",
    "LITELLM_LOCAL_MODEL_COST_MAP",
    "REPEATED_STREAMING_CHUNK_LIMIT",
)

SCRIPT = """
import asyncio, json, os, sys
from pathlib import Path
from core.context.encoding import DEFAULT_LOADER
from core.llm.litellm_route import load_litellm
from core.tools.process import run_command

NAMES = json.loads(sys.argv[2])

async def main() -> None:
    if sys.argv[1] == "litellm":
        await load_litellm()  # its import sets TIKTOKEN_CACHE_DIR for the whole process
    assert DEFAULT_LOADER.get("cl100k_base") is not None, "the bundled encoding must load"
    own = {name: os.environ.get(name) for name in NAMES}
    done = await run_command("env", cwd=Path.cwd(), timeout_s=30, abort=asyncio.Event())
    child = dict(line.split("=", 1) for line in done.output.splitlines() if "=" in line)
    print(json.dumps({"own": own, "child": {name: child.get(name) for name in NAMES}}))

asyncio.run(main())
"""


def run(
    tmp_path: Path, mode: str, user: dict[str, str]
) -> tuple[dict[str, str | None], dict[str, str | None]]:
    env = {k: v for k, v in os.environ.items() if k not in NAMES and not k.startswith("AGENTLS_")}
    env.update(user, PYTHONPATH=str(ROOT), HOME=str(tmp_path), AGENTLS_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, json.dumps(NAMES)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    return seen["own"], seen["child"]


BUNDLED = str(tokenizer_dir())

CASES = [
    # (what loads, the user's variables, what agentls's process has, what a tool's command gets)
    ("tiktoken", {}, {"TIKTOKEN_CACHE_DIR": BUNDLED, "CUSTOM_TIKTOKEN_CACHE_DIR": BUNDLED}, {}),
    (
        "tiktoken",
        {"TIKTOKEN_CACHE_DIR": "/users/own/cache"},
        {"TIKTOKEN_CACHE_DIR": BUNDLED},
        {"TIKTOKEN_CACHE_DIR": "/users/own/cache"},
    ),
    (
        "tiktoken",
        {"CUSTOM_TIKTOKEN_CACHE_DIR": BUNDLED},
        {"TIKTOKEN_CACHE_DIR": BUNDLED, "CUSTOM_TIKTOKEN_CACHE_DIR": BUNDLED},
        {"CUSTOM_TIKTOKEN_CACHE_DIR": BUNDLED},
    ),
    (
        "litellm",
        {},
        {"TIKTOKEN_CACHE_DIR": BUNDLED, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        {},
    ),
    (
        "litellm",
        {"LITELLM_LOCAL_MODEL_COST_MAP": "true", "TIKTOKEN_CACHE_DIR": "/users/own/cache"},
        {"LITELLM_LOCAL_MODEL_COST_MAP": "true", "TIKTOKEN_CACHE_DIR": BUNDLED},
        {"LITELLM_LOCAL_MODEL_COST_MAP": "true", "TIKTOKEN_CACHE_DIR": "/users/own/cache"},
    ),
]


@pytest.mark.parametrize(("mode", "user", "own", "child"), CASES)
def test_a_tools_command_gets_the_users_values_not_agentls_own(
    tmp_path: Path, mode: str, user: dict[str, str], own: dict[str, str], child: dict[str, str]
) -> None:
    seen_own, seen_child = run(tmp_path, mode, user)
    assert {k: v for k, v in seen_own.items() if k in own} == own
    assert {k: v for k, v in seen_child.items() if v is not None} == child
