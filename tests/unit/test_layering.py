"""core/ must stay editor-agnostic: importing every core module never pulls in pygls or lsprotocol."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pygls", "lsprotocol", "lsp_server"):
            raise ImportError(f"core imported {name}")
        return None
sys.meta_path.insert(0, Block())
import core
for mod in pkgutil.walk_packages(core.__path__, "core."):
    importlib.import_module(mod.name)
print("ok")
"""


def test_core_imports_without_pygls_lsprotocol_or_lsp_server() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")
