"""Modes (the primary agents: build, plan, …) and the session config options (mode and model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

from core.errors import NotFoundError

if TYPE_CHECKING:
    from acp_server.state import AcpSession
    from core.api import Agent

MODE = "mode"
MODEL = "model"


def modes(app: Agent) -> list[tuple[str, str]]:
    """The agents a user can talk to directly, as (name, description)."""
    return [(a.name, a.description or a.name) for a in app.config_info().agents if a.mode != "subagent"]


def models(app: Agent) -> list[str]:
    """The configured models, "provider/model"."""
    return list(app.config_info().models)


def current_model(app: Agent, session: AcpSession) -> str | None:
    """The model the next prompt uses: the session's choice, the agent's, or the config's."""
    if session.model:
        return session.model
    info = app.config_info()
    try:
        agent_model = info.agent(session.mode).model
    except NotFoundError:  # an agent removed from the config: the config's model applies
        agent_model = None
    return agent_model or info.default_model


def mode_state(app: Agent, session: AcpSession) -> SessionModeState:
    """``modes`` of a session response."""
    return SessionModeState(
        current_mode_id=session.mode,
        available_modes=[SessionMode(id=n, name=n, description=d) for n, d in modes(app)],
    )


def config_options(app: Agent, session: AcpSession) -> list[Any]:
    """``configOptions``: the mode and, when a model is configured, the model."""
    options: list[Any] = [
        SessionConfigOptionSelect(
            type="select",
            id=MODE,
            name="Mode",
            description="The agent that answers: its tools, permissions and prompt",
            category="mode",
            current_value=session.mode,
            options=[SessionConfigSelectOption(value=n, name=n, description=d) for n, d in modes(app)],
        )
    ]
    model = current_model(app, session)
    choices = models(app)
    if model and model not in choices:
        choices = [model, *choices]
    if model:
        options.append(
            SessionConfigOptionSelect(
                type="select",
                id=MODEL,
                name="Model",
                category="model",
                current_value=model,
                options=[SessionConfigSelectOption(value=m, name=m) for m in choices],
            )
        )
    return options


AUTONOMY = "autonomy"
EFFORT = "effort"


async def control_options(app: Agent, session: AcpSession) -> list[Any]:
    """The session's autonomy mode (category ``mode``: ask / auto / plan for file edits) and, when
    the model of its next prompt offers levels, its effort (category ``thought_level``)."""
    session_id = session.id
    mode = await app.session_mode(session_id)
    out: list[Any] = [
        SessionConfigOptionSelect(
            type="select",
            id=AUTONOMY,
            name="Edits",
            description="Ask before each edit, accept edits and review them afterwards, or plan only",
            category="mode",
            current_value=mode.mode,
            options=[
                SessionConfigSelectOption(value=m.id, name=m.name, description=m.description)
                for m in mode.modes
            ],
        )
    ]
    effort = await app.session_effort(session_id, model=current_model(app, session))
    session.effort_sent = effort.effort
    if effort.levels:
        default = SessionConfigSelectOption(
            value="default", name="default", description="The model's own setting"
        )
        out.append(
            SessionConfigOptionSelect(
                type="select",
                id=EFFORT,
                name="Effort",
                description="How hard the model thinks",
                category="thought_level",
                current_value=effort.effort,
                options=[default, *(SessionConfigSelectOption(value=v, name=v) for v in effort.levels)],
            )
        )
    return out


async def all_options(app: Agent, state: AcpSession) -> list[Any]:
    """The session's config options: agent and model, then autonomy and effort."""
    return [*config_options(app, state), *await control_options(app, state)]
