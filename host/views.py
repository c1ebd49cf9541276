"""Each front end's view of a project's shared agent: the keys its config layers set for itself.

The host opens one agent per project folder and agent-wide config (``core.config.scope``); each
front end that opens it keeps a ``View``: its whole layers and the model they set. A turn the
front end starts (``prompt``, ``run_command``) with no model of its own runs on that model, so a
prompt it queues keeps it and another front end's turns never see it; what it reads of the config
(``config_info``, ``check_model``, ``config.updated``) is its view; its ``reconfigure`` changes its
view (and reads the project's files again for everyone), never another front end's.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.api import Agent, ConfigInfo, Layer, Reconfigured
from core.config.loader import load_config
from core.config.scope import agent_wide, front_end_keys, set_keys
from core.errors import AgentError
from core.remote import codec
from core.remote.connection import described

if TYPE_CHECKING:
    from host.projects import Project

# The calls whose turn a front end's view chooses the model of, when the call names none.
_TURNS = {"prompt", "run_command"}


@dataclasses.dataclass
class View:
    """What one front end's layers say of a shared agent."""

    layers: list[Layer]
    model: str | None = None  # the model its layers set (None: the agent's own choice)
    # The keys its reconfigure changed in the view, for the ``config.updated`` it sends this front end.
    changed: set[str] = dataclasses.field(default_factory=set)


async def make_view(agent: Agent, layers: Sequence[Layer]) -> View:
    """The view of ``layers``: checked as the whole config an agent of their own would load (a
    ConfigError when they are invalid, as an in-process open or reconfigure raises)."""
    view = View(list(layers))
    if front_end_keys(layers):
        resolved = await asyncio.to_thread(load_config, agent.directory, agent.worktree, layers)
        view.model = resolved.config.model
    return view


def fill(method: str, args: dict[str, Any], view: View | None, agent: Agent) -> dict[str, Any]:
    """``args`` of a call with the view's model where a turn it starts names none and its agent
    has no model of its own (as the agent's own model beats the configured one in-process)."""
    if view is None or view.model is None or method not in _TURNS or args.get("model") is not None:
        return args
    info = agent.config_info()
    name = args.get("agent") or info.default_agent
    if any(summary.name == name and summary.model for summary in info.agents):
        return args
    return {**args, "model": view.model}


def view_info(info: ConfigInfo, view: View | None, agent: Agent) -> ConfigInfo:
    """The agent's config as the front end of ``view`` sees it: its model as the default."""
    if view is None or view.model is None:
        return info
    models = info.models if view.model in info.models else (*info.models, view.model)
    limits = {**info.model_limits, view.model: agent.model_limits(view.model)}
    return dataclasses.replace(info, default_model=view.model, models=models, model_limits=limits)


def view_wire(properties: dict[str, Any], view: View | None, agent: Agent) -> dict[str, Any]:
    """A ``config.updated``'s properties (``ConfigInfo.to_wire``'s fields) as ``view`` sees them."""
    if view is None:
        return properties
    if view.changed:
        properties = {**properties, "changed": sorted({*properties["changed"], *view.changed})}
        view.changed = set()
    if view.model is None:
        return properties
    models = list(properties["models"])
    limits = agent.model_limits(view.model)
    return {
        **properties,
        "defaultModel": view.model,
        "models": models if view.model in models else [*models, view.model],
        "modelLimits": {
            **properties["modelLimits"],
            view.model: {"context": limits.context, "output": limits.output},
        },
    }


def view_facts(facts: dict[str, Any], view: View | None, agent: Agent) -> dict[str, Any]:
    """``Project.facts`` as the front end of ``view`` sees them (its model's check as the default's)."""
    if view is None or view.model is None:
        return facts
    try:
        agent.check_model(view.model)
        check = None
    except AgentError as exc:
        check = described(exc)
    info = view_info(agent.config_info(), view, agent)
    return {
        "config_info": codec.dump_result("config_info", info),
        "checks": {**facts["checks"], "": check, view.model: check},
    }


def differing(mine: Sequence[Layer], theirs: Sequence[Layer]) -> list[str]:
    """The agent-wide top-level keys whose values differ between two sets of layers."""
    a, b = agent_wide(mine), agent_wide(theirs)
    keys = set_keys(a) | set_keys(b)
    return sorted(key for key in keys if _value(a, key) != _value(b, key))


def _value(layers: Sequence[Layer], key: str) -> Any:
    """What the last layer that sets ``key`` says of it (the later layer wins)."""
    found: Any = None
    for layer in layers:
        if key in layer.data:
            found = layer.data[key]
    return found


async def reconfigure(
    project: Project, view: View, layers: Sequence[Layer] | None, alone: bool
) -> Reconfigured:
    """A front end's ``reconfigure``: its view takes ``layers`` (None: the same again) and the
    agent reads the project's files again. Agent-wide keys that differ from the agent's change
    the agent only when this front end is ``alone`` on it; else they are named in a warning.
    Invalid layers (or files) raise ConfigError and change nothing."""
    layers = list(view.layers if layers is None else layers)
    new_view = await make_view(project.agent, layers)
    keys = differing(layers, project.layers)
    applied = keys and alone
    old = view.layers, view.model
    # The view first: the ``config.updated`` the agent's reconfigure sends this front end is its new one.
    view.layers, view.model = new_view.layers, new_view.model
    view.changed = {"model"} if view.model != old[1] else set()
    try:
        result = await project.agent.reconfigure(agent_wide(layers) if applied else project.layers)
    except BaseException:
        view.layers, view.model = old
        view.changed = set()
        raise
    if applied:
        project.layers = agent_wide(layers)
    changed = set(result.changed)
    if view.model != old[1]:
        changed.add("model")
    warnings = [not_applied(keys)] if keys and not alone else []
    return Reconfigured(changed=sorted(changed), warnings=[*result.warnings, *warnings])


def not_applied(keys: Sequence[str]) -> str:
    """The warning of a reconfigure whose agent-wide keys another front end's agent holds."""
    return (
        f"the settings {', '.join(keys)} apply to the whole agent, which other front ends of this "
        "project share: they were not applied (the model is this editor's own). Set them in the "
        "project's agentls.json, or reopen the project here to get an agent of its own"
    )


def own_agent(keys: Sequence[str], others: Sequence[str]) -> str:
    """The warning of an open whose agent-wide keys differ from those of another agent of the
    folder that ``others`` (front ends) use."""
    return (
        f"the settings {', '.join(keys)} apply to the whole agent and differ between this editor and "
        f"{', '.join(others)}: each has an agent of its own for this folder, so they do not follow "
        "each other's turns live (only the model may differ between editors sharing one agent). Set "
        "them in the project's agentls.json to share one"
    )
