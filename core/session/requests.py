"""Building one step's model request: system prompt, converted history, the agent's tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.llm.effort import request_options
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest, ToolSpec
from core.message.models import MessageWithParts, UserMessage
from core.prompts import load
from core.session.convert import to_model_messages
from core.session.reminders import insert_reminders
from core.session.runtime import Runtime
from core.session.system import build_system, environment, family_prompt
from core.tools.base import Tool

# Output budget per request; the rest of the window is for the context (seed 004's OUTPUT_TOKEN_MAX).
OUTPUT_TOKEN_MAX = 32_000


@dataclass
class StepPlan:
    """What the loop decided for this step."""

    session_id: str
    history: list[MessageWithParts]
    user: UserMessage
    agent: Any
    model: ModelInfo
    step: int
    last_finished_id: str | None
    tools_enabled: bool = True


class RequestBuilder:
    """Turns a StepPlan into an LLMRequest and the tools the model may call."""

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def build(self, plan: StepPlan) -> tuple[LLMRequest, dict[str, Tool[Any]]]:
        """The request for this step and the tools offered with it."""
        rt = self._rt
        model = plan.model
        controls = await rt.session_controls(plan.session_id)
        ruleset = rt.ruleset_for(plan.agent, plan.session_id)
        tools = rt.tools_for(plan.agent, plan.user, ruleset) if plan.tools_enabled else {}
        # Plan mode reads like the plan agent: the model is reminded that it may not change files.
        reminded = "plan" if controls.mode == "plan" else plan.agent.name
        history = insert_reminders(plan.history, reminded, plan.step, plan.last_finished_id)
        messages = to_model_messages(history, media_in_tool_results=model.supports_media_in_tool_results)
        if not plan.tools_enabled:
            messages.append(
                {"role": "user", "content": [{"type": "text", "text": load("session/max_steps.md")}]}
            )
        instructions = await rt.instructions.render_all(rt.directory, rt.worktree, rt.config.instructions)
        system = build_system(
            base=plan.agent.prompt or family_prompt(model.family),
            user_system=plan.user.system,
            env=environment(f"{model.provider_id}/{model.model_id}", rt.directory, rt.is_git),
            instructions=instructions,
            skills=rt.skills() if "skill" in tools else [],
        )
        max_tokens = min(model.limit.output, OUTPUT_TOKEN_MAX) if model.limit.output else None
        options = dict(plan.agent.options or {})
        effort = request_options(model, controls.effort, max_tokens, options)
        request = LLMRequest(
            model=model,
            system=system,
            messages=messages,
            tools=[ToolSpec(**t.spec()) for t in tools.values()],
            temperature=None if effort.no_sampling else plan.agent.temperature,
            top_p=None if effort.no_sampling else plan.agent.top_p,
            max_tokens=max_tokens,
            options={**options, **effort.options},
        )
        return request, tools
