"""What a call may do, and which model a session uses: the ``Policy`` and ``Models`` records.

``AgentPolicy`` judges calls (rules, tools offered, each call's context with its ``ask`` bound once);
``ModelChoice`` resolves model references against the config in effect, picks the small model for
titles (a warning event, once per reason, when there is none) and carries a session's model across
a reconfigure. ``core.wiring`` builds both; neither knows the app.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from functools import partial
from typing import Protocol

from core.agent.agents import effective_ruleset
from core.agent.builtin import builtin_agents
from core.agent.info import AgentInfo
from core.app_config import LiveSettings
from core.bus import Bus
from core.dialogs import AppDialogs
from core.editor import EditorIntelligence
from core.errors import NotFoundError, PermissionRejectedError
from core.events import AgentWarning, TaskOrigin
from core.llm.model import ModelInfo, resolve_model, resolve_small_model
from core.message.models import ModelRef, UserMessage
from core.permission import rules
from core.permission.request import PermissionAsk
from core.permission.service import Permissions
from core.question.service import Questions
from core.session.claims import FileClaims
from core.session.mode import SessionControls, mode_rules
from core.session.prompt import parse_model_ref
from core.session.records import Place
from core.session.sessions import Sessions
from core.tools.base import ToolSet
from core.tools.context import SubtaskRunner, ToolContext, no_claims
from core.tools.editor import EditorTool
from core.tools.registry import ToolRegistry
from core.tools.shells import BackgroundShells
from core.tools.skill import list_skills

log = logging.getLogger(__name__)


class ChildSessions(SubtaskRunner, Protocol):
    """Subtasks as the policy sees them: a runner for calls, and the children to abort with a session."""

    def children_of(self, session_id: str) -> list[str]: ...

    def origin_of(self, session_id: str) -> TaskOrigin | None: ...


class AgentPolicy:
    """Implements ``core.session.records.Policy`` over the dialogs, the tools, the sessions' modes
    (``core.session.mode``) and the config in effect.

    ``subtasks`` is set once the subtasks exist (they judge their own calls by this policy).
    """

    def __init__(
        self,
        settings: LiveSettings,
        place: Place,
        sessions: Sessions,
        dialogs: AppDialogs,
        permissions: Permissions,
        questions: Questions,
        tools: ToolRegistry,
        controls: SessionControls,
    ) -> None:
        self._settings, self._place, self._sessions = settings, place, sessions
        self._controls = controls
        self._dialogs, self._permissions, self._questions = dialogs, permissions, questions
        self.tools = tools
        self.subtasks: ChildSessions | None = None
        self.editor: EditorIntelligence | None = None
        self.shells = BackgroundShells(sessions.bus)  # bash background: true, per agent
        self.claims: FileClaims | None = None  # who may write what while background sub-agents run

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> rules.Ruleset:
        """The rules a call in this session is judged by (approvals are added by the service), as
        the session's mode changes them (``mode_rules``; the mode is loaded before the step asks)."""
        ruleset = effective_ruleset(agent, self._settings.config, self._dialogs.session_rules(session_id))
        return mode_rules(self._controls.now(session_id).mode, ruleset, self._plan_rules())

    def _plan_rules(self) -> rules.Ruleset:
        """The plan agent's own rules (what read-only mode adds): the project's, else the built-in one's."""
        try:
            return list(self._settings.agents.get("plan").permission)
        except NotFoundError:
            return next(list(a.permission) for a in builtin_agents() if a.name == "plan")

    def set_session_rules(self, session_id: str, ruleset: rules.Ruleset) -> None:
        """Extra rules for one session (a subagent's derived rules)."""
        self._dialogs.deny_in_session(session_id, ruleset)

    def tools_for(self, agent: AgentInfo, user: UserMessage, ruleset: rules.Ruleset) -> ToolSet:
        """The tools the model sees: built-in and MCP tools minus denied and switched-off ones."""
        all_tools = {t.id: t for t in [*self.tools.all(), *self._settings.state.mcp.tools()]}
        hidden = rules.disabled(all_tools, ruleset)  # approvals never lift a denial
        hidden |= self._unanswered_editor_tools(all_tools)
        switched_off = {k for k, v in (user.tools or {}).items() if not v}
        return {k: t for k, t in all_tools.items() if k not in hidden and k not in switched_off}

    def _unanswered_editor_tools(self, tools: ToolSet) -> set[str]:
        """Editor tools whose query the editor connected now does not answer (asked every step)."""
        supported = self.editor.supported() if self.editor is not None else frozenset()
        return {k for k, t in tools.items() if isinstance(t, EditorTool) and t.query not in supported}

    def mcp_instructions(self, offered: Collection[str]) -> list[tuple[str, str]]:
        """(server, instructions) of the running MCP servers whose tools are offered, config order."""
        return self._settings.state.mcp.instructions(offered)

    def skills(self) -> list[tuple[str, str]]:
        """Skills for the system prompt."""
        return [(s.name, s.description) for s in list_skills(self._place.worktree)]

    def tool_context(
        self,
        session_id: str,
        agent: AgentInfo,
        abort: asyncio.Event,
        ruleset: rules.Ruleset,
        message_id: str,
        call_id: str,
    ) -> ToolContext:
        """The context for one tool call, its ``ask`` bound once to the call's ids and ``ruleset``
        (the rules of the step it belongs to; its ``ruleset`` field is the same list)."""
        permissions, subtasks = self._permissions, self.subtasks

        async def ask(request: PermissionAsk) -> None:
            if abort.is_set():
                # The abort has already rejected the session's dialogs (cancel_dialogs): a dialog
                # asked after it (a tool that awaited its own work first, such as the bash check
                # on its thread) would wait for an answer no one gives, and the turn would hang.
                raise PermissionRejectedError("The session was aborted before the user answered.")
            # A sub-agent's dialog names the task call it runs for (clients show it in the parent).
            task = subtasks.origin_of(session_id) if subtasks is not None else None
            await permissions.ask(session_id, message_id, call_id, request, ruleset, task)

        state, place = self._settings.state, self._place
        workspace = state.snapshots.workspace
        return ToolContext(
            session_id=session_id,
            message_id=message_id,
            call_id=call_id,
            agent=agent.name,
            abort=abort,
            workspace=self.claims.guard(workspace) if self.claims is not None else workspace,
            directory=place.directory,
            worktree=place.worktree,
            data_dir=place.data_dir,
            ask=ask,
            max_lines=state.config.tool_output.max_lines,
            max_bytes=state.config.tool_output.max_bytes,
            ruleset=ruleset,
            todos=self._sessions,
            questions=self._questions,
            subtasks=self.subtasks,
            editor=self.editor,
            sandbox=state.sandbox,
            shells=self.shells,
            claim=partial(self.claims.check_all, session_id) if self.claims is not None else no_claims,
        )

    def cancel_dialogs(self, session_id: str) -> None:
        """Reject the session's pending permission requests and questions, and its children's (abort)."""
        children = self.subtasks.children_of(session_id) if self.subtasks is not None else []
        for session in (session_id, *children):
            self._permissions.cancel_session(session)
            self._questions.cancel_session(session)


class ModelChoice:
    """Which model a reference, a session's titles and a session after a reconfigure use."""

    def __init__(self, settings: LiveSettings, bus: Bus) -> None:
        self._settings, self._bus = settings, bus
        self.moved_defaults: dict[str, str] = {}  # default models a reconfigure replaced → the new one
        self._small_model_warned: set[str] = set()

    def resolve(self, ref: str) -> ModelInfo:
        """ModelInfo for ``provider/model``."""
        return resolve_model(self._settings.config, ref)

    def small(self, user: UserMessage) -> ModelInfo | None:
        """The model for titles and summaries (None when even the main model cannot be resolved)."""
        try:
            main = self.resolve(f"{user.model.providerID}/{user.model.modelID}")
            return resolve_small_model(self._settings.config, main)
        except Exception as exc:  # no title model is a reason to fall back, never to fail the turn
            log.warning("no small model: %s", exc)
            reason = str(exc)
            if reason not in self._small_model_warned:  # once per reason, not at every turn
                self._small_model_warned.add(reason)
                message = f"no small model for titles and summaries ({reason}); the session keeps its title"
                self._bus.publish(AgentWarning(kind="small-model", sessionID=user.sessionID, message=message))
            return None

    def carry(self, ref: ModelRef) -> ModelRef:
        """The model a session whose last prompt used ``ref`` goes on with: the new default when
        ``ref`` was the default until a reconfigure changed it, or when its provider's list of
        models no longer offers it (the user took it out of the settings), else ``ref``."""
        moved = self.moved_defaults.get(f"{ref.providerID}/{ref.modelID}")
        if moved is not None:
            return parse_model_ref(moved)
        config = self._settings.config
        provider = config.provider.get(ref.providerID)
        if provider is not None and provider.models and ref.modelID not in provider.models and config.model:
            log.info(
                "%s/%s is no longer configured: the session goes on with the default",
                ref.providerID,
                ref.modelID,
            )
            return parse_model_ref(config.model)
        return ref
