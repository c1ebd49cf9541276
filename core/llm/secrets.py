"""Provider keys agentls resolved for its own calls, kept out of the environment of its children.

A key in ``os.environ`` is inherited by every subprocess; a tool that prints its environment (``env``,
a failing script's debug dump) would put it in the session, on disk and in the next model request.
The config can pass a provider's key on (``provider.<id>.options.pass_key_to_tools``).
"""

from __future__ import annotations

from collections.abc import Mapping

_names: set[str] = set()  # environment variables a key was read from
_values: set[str] = set()  # the keys themselves, whatever variable may also hold them
_passed: set[str] = set()  # keys the config lets children see


def remember(value: str, env_name: str | None = None, *, pass_to_tools: bool = False) -> None:
    """Record a key agentls resolved (and the variable it came from)."""
    if not value:
        return
    if pass_to_tools:
        _passed.add(value)
        return
    _values.add(value)
    if env_name is not None:
        _names.add(env_name)


def child_environment(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` without the variables that hold a key agentls resolved for itself."""
    hidden = _values - _passed
    return {
        name: value
        for name, value in base.items()
        if value not in hidden and (name not in _names or value in _passed)
    }
