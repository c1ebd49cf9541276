"""One end-to-end scenario in the real VS Code: code-server with the packaged extension and the real
``agentls serve``, driven by a Node script in Chromium; shared by the scenarios' fixtures."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.tools import ROOT
from tests.vscode.build import vsix
from tests.vscode.codeserver import code_server
from tests.vscode.phases import drive as run_driver
from tests.vscode.phases import phase_result

HERE = Path(__file__).parent
AGENTLS = ROOT / ".venv" / "bin" / "agentls"


@dataclass
class Driven:
    """What the driver printed as its RESULT line, and its whole output (with the server's log
    tail when it failed)."""

    result: dict[str, Any]
    output: str

    def phase(self, name: str) -> dict[str, Any]:
        return phase_result(self.result, self.output, name)


def drive(
    driver: str,
    name: str,
    tmp: Path,
    folder: Path,
    config: Any,
    *,
    settings: Mapping[str, Any] | None = None,
    args: Mapping[str, Any] | None = None,
    signals: Mapping[str, Callable[[], object]] | None = None,
) -> Driven:
    """Open ``folder`` in code-server with the extension (agentls data and config under ``tmp``,
    ``config`` as ``agentls.config``, more user ``settings`` beside it), run ``tests/vscode/<driver>``
    against it (with ``args`` beside url/folder/shots; a ``SIGNAL x`` line it prints runs
    ``signals[x]``), and keep its screenshots and log in ``tests/vscode/screenshots/<name>``."""
    assert AGENTLS.is_file(), f"{AGENTLS} is missing: run ./scripts/setup"
    package = vsix()
    shots = tmp / "screenshots"
    user = {"agentls.server.path": str(AGENTLS), "agentls.config": config, **(settings or {})}
    env = {"AGENTLS_DATA_DIR": str(tmp / "agentls-data"), "AGENTLS_CONFIG_DIR": str(tmp / "agentls-config")}
    with code_server(tmp / "vscode", package, user, env) as cs:
        run_args = {"url": cs.url, "folder": str(folder), "shots": str(shots), **(args or {})}
        output, result = run_driver(HERE / driver, run_args, signals or {})
        if not result.get("ok"):
            output += "\ncode-server log:\n" + cs.log.read_text()[-3000:]
    target = HERE / "screenshots" / name
    shutil.rmtree(target, ignore_errors=True)
    if shots.is_dir():
        shutil.copytree(shots, target)
    target.mkdir(parents=True, exist_ok=True)
    (target / "driver.log").write_text(output)
    return Driven(result, output)
