"""`agentls mcp login|logout|list` against the SDK's protected server with its own authorization
server (real subprocesses): list says a server needs a login and how; login opens the user's
browser (``BROWSER``: a script that approves) or only prints the address, and stores the tokens
owner-only; list then shows it running and logged in; logout deletes them. A browser that never
comes back, a server that needs no login, a local server and an untrusted project's server are
each said plainly."""

from __future__ import annotations

import asyncio
import json
import shlex
import stat
import sys
from pathlib import Path

from demo.fake_model import FakeModelServer

from .mcp_oauth_helpers import OAuthServer, approve, oauth_server
from .test_cli import AGENTLS, agentls, model_env

BROWSER = Path(__file__).parents[1] / "fixtures" / "mcp" / "approving_browser.py"


def with_vault(project: Path, server: OAuthServer) -> None:
    config = {
        "mcp": {
            "vault": {"type": "remote", "url": server.url},
            "here": {"type": "local", "command": ["true"]},
        }
    }
    (project / "agentls.json").write_text(json.dumps(config))


async def test_list_login_list_logout_as_a_user_runs_them(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    env = model_env(tmp_path, model, title_model)
    env["BROWSER"] = f"{shlex.quote(sys.executable)} {shlex.quote(str(BROWSER))} %s"
    async with oauth_server(tmp_path) as server:
        with_vault(project, server)
        await agentls("trust", "add", str(project), cwd=project, env=env)
        code, out, err = await agentls("mcp", "list", cwd=project, env=env)
        assert code == 1, (out, err)
        assert "vault  remote  needs-login  it needs a login: run `agentls mcp login vault`" in out, out

        code, out, err = await agentls("mcp", "login", "vault", cwd=project, env=env)
        assert code == 0, (out, err)
        assert "To log in to vault, open this address in your browser:" in out
        assert "vault: logged in" in out and "200 " in err and "You are logged in" in err, (out, err)
        tokens = tmp_path / "data" / "mcp-oauth.json"
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
        assert list(json.loads(tokens.read_text())) == [server.url]
        assert json.loads(tokens.read_text())[server.url]["tokens"]["access_token"] not in out + err

        code, out, err = await agentls("mcp", "list", "--json", cwd=project, env=env)
        vault = next(s for s in json.loads(out) if s["name"] == "vault")
        assert (vault["status"], vault["tools"], vault["auth"]) == ("running", 1, "logged-in"), vault
        code, out, err = await agentls("mcp", "list", cwd=project, env=env)
        assert "vault  remote  running   1 tools, 0 resources, 0 prompts  (logged in)" in out, out

        code, out, err = await agentls("mcp", "logout", "vault", cwd=project, env=env)
        assert (code, out.strip()) == (0, "vault: logged out (its tokens are deleted)"), err
        assert json.loads(tokens.read_text()) == {}
        code, out, err = await agentls("mcp", "logout", "vault", cwd=project, env=env)
        assert out.strip() == "vault: was not logged in; nothing to delete"
        code, out, err = await agentls("mcp", "list", "--json", cwd=project, env=env)
        assert next(s for s in json.loads(out) if s["name"] == "vault")["status"] == "needs-login"

        code, out, err = await agentls("mcp", "login", "here", cwd=project, env=env)
        assert code == 1 and "here is a local MCP server: only remote (HTTP) servers log in" in err


async def test_no_browser_prints_the_address_and_waits_for_it(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    env = model_env(tmp_path, model, title_model)
    async with oauth_server(tmp_path) as server:
        with_vault(project, server)
        await agentls("trust", "add", str(project), cwd=project, env=env)
        proc = await asyncio.create_subprocess_exec(
            *AGENTLS, "mcp", "login", "vault", "--no-browser", cwd=project, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        lines = []
        while not (line := (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()).startswith(
            "  http"
        ):
            assert line, "login exited before printing the address"
            lines.append(line)
        page = await approve(line.strip())
        assert page.status_code == 200
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0 and "vault: logged in" in out.decode(), (out, err)


async def test_a_browser_that_never_comes_back_and_a_server_without_login(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    env = model_env(tmp_path, model, title_model)
    async with oauth_server(tmp_path) as server:
        with_vault(project, server)
        await agentls("trust", "add", str(project), cwd=project, env=env)
        code, out, err = await agentls(
            "mcp", "login", "vault", "--no-browser", "--timeout", "0.5", cwd=project, env=env
        )
        assert code == 1, (out, err)
        assert "the login to vault failed: no answer from the browser within 0.5 s" in err, err
        assert not (tmp_path / "data" / "mcp-oauth.json").exists()
    async with oauth_server(tmp_path, OAUTH_OPEN="1") as server:
        with_vault(project, server)
        code, out, err = await agentls("mcp", "login", "vault", "--no-browser", cwd=project, env=env)
        assert code == 0 and "vault needs no login: it answered without one; nothing was stored" in out, err


async def test_an_untrusted_projects_server_is_not_logged_in_to(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    env = model_env(tmp_path, model, title_model)
    async with oauth_server(tmp_path) as server:
        with_vault(project, server)
        code, _out, err = await agentls("mcp", "login", "vault", "--no-browser", cwd=project, env=env)
        assert code == 1 and "no MCP server 'vault' is configured here (configured: none)" in err, err
        assert "not trusted" in err.lower(), err
        assert server.grants() == []
