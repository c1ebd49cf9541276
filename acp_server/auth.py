"""``authenticate``: whether agentls can use a model, said before the user's first prompt.

Only the ``agentls-config`` method is authenticated here; a terminal method is run by the client
itself (``agentls acp --auth``) and never passed to ``authenticate``. The config is read again first,
so a key stored a moment ago by ``agentls auth`` counts. A model that cannot be used is an ACP
``auth_required`` error whose message names what is missing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp import RequestError
from acp.schema import AuthenticateResponse

from acp_server.auth_methods import CONFIG_METHOD, TERMINAL_METHOD
from acp_server.errors import AUTH_REQUIRED, invalid_params, to_request_error
from core.errors import AgentError

if TYPE_CHECKING:
    from acp_server.front import Front

log = logging.getLogger(__name__)


async def authenticate(front: Front, method_id: str) -> AuthenticateResponse:
    """Check the default model of the client's project (the first opened, else the agent's cwd)."""
    if method_id == TERMINAL_METHOD:
        raise invalid_params(
            f"{TERMINAL_METHOD} is a terminal method: run `agentls acp --auth` in a terminal instead"
        )
    if method_id != CONFIG_METHOD:
        raise invalid_params(f"unknown authentication method {method_id!r}; offered: {CONFIG_METHOD}")
    try:
        project = await front.default_project()
        await project.app.reconfigure()
        ref = project.app.check_model()
    except AgentError as exc:
        data = to_request_error(exc).data
        raise RequestError(AUTH_REQUIRED, f"Authentication required: {exc}", data) from exc
    log.info("authenticated: %s can be used", ref)
    return AuthenticateResponse()
