"""``agentls run`` as a user starts it: the console script, a fresh process, the fake model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn


def run_agent(tmp_path: Path, model: FakeModelServer, titles: FakeModelServer, **extra: str) -> None:
    """``agentls run "say hello" --yes`` in ``tmp_path/project``, with its own data, config and cache
    folders there; ``extra`` adds environment variables. Fails unless the model's answer is printed."""
    root = tmp_path / "project"
    root.mkdir(parents=True, exist_ok=True)
    model.script(Turn.text("hello from the fake model"))
    titles.script(Turn.text("A title"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTLS_")}
    env.update(
        AGENTLS_DATA_DIR=str(tmp_path / "data"),
        AGENTLS_CONFIG_DIR=str(tmp_path / "config"),
        AGENTLS_CACHE_DIR=str(tmp_path / "cache"),
        HOME=str(tmp_path / "home"),
        AGENTLS_CONFIG_CONTENT=json.dumps(fake_model_config(model, titles)),
        **extra,
    )
    done = subprocess.run(
        [str(Path(sys.executable).parent / "agentls"), "run", "say hello", "--yes", "-C", str(root)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "hello from the fake model" in done.stdout
