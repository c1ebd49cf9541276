"""Building one step's model request: system prompt, converted history, the agent's tools."""

from __future__ import annotations

from core.agent.info import AgentInfo
from core.llm.catalog import edits_with_patch
from core.llm.effort import request_options
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest, ToolSpec
from core.message.models import MessageWithParts, UserMessage
from core.prompts import load
from core.record import struct
from core.session.convert import to_model_messages
from core.session.mode import SessionControls
from core.session.records import Place, Policy, Settings
from core.session.reminders import insert_reminders
from core.session.system import InstructionFiles, agent_base, build_system, environment
from core.tools.apply_patch import offered_edit_tools
from core.tools.base import ToolSet

# Output budget per request; the rest of the window is for the context (seed 004's OUTPUT_TOKEN_MAX).
OUTPUT_TOKEN_MAX = 32_000


@struct
class StepPlan:
    """What the loop decided for this step."""

    session_id: str
    history: list[MessageWithParts]
    user: UserMessage
    agent: AgentInfo
    model: ModelInfo
    step: int
    last_finished_id: str | None
    tools_enabled: bool = True


class RequestBuilder:
    """Turns a StepPlan into an LLMRequest and the tools the model may call."""

    def __init__(
        self,
        place: Place,
        settings: Settings,
        policy: Policy,
        instructions: InstructionFiles,
        controls: SessionControls,
    ) -> None:
        self._place, self._settings, self._policy = place, settings, policy
        self._instructions, self._controls = instructions, controls

    async def build(self, plan: StepPlan) -> tuple[LLMRequest, ToolSet]:
        """The request for this step and the tools offered with it."""
        place, policy = self._place, self._policy
        model = plan.model
        controls = await self._controls.get(plan.session_id)  # loaded before the rules read the mode
        ruleset = policy.ruleset_for(plan.agent, plan.session_id)
        tools = policy.tools_for(plan.agent, plan.user, ruleset) if plan.tools_enabled else {}
        tools = offered_edit_tools(tools, edits_with_patch(model.family))
        # Read-only mode is reminded like the plan agent (no changes), with its own way out (the mode).
        history = insert_reminders(
            plan.history, plan.agent.name, plan.step, plan.last_finished_id, plan_mode=controls.mode == "plan"
        )
        messages = to_model_messages(history, media_in_tool_results=model.supports_media_in_tool_results)
        if not plan.tools_enabled:
            messages.append(
                {"role": "user", "content": [{"type": "text", "text": load("session/max_steps.md")}]}
            )
        instructions = await self._instructions.render_all(
            place.directory, place.worktree, self._settings.config.instructions
        )
        system = build_system(
            base=agent_base(plan.agent, model.family),
            user_system=plan.user.system,
            env=environment(f"{model.provider_id}/{model.model_id}", place.directory, place.is_git),
            instructions=instructions,
            skills=policy.skills() if "skill" in tools else [],
            mcp=policy.mcp_instructions(tools.keys()),
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
