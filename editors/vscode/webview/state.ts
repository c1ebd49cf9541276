// The chat view's state and the reducer that builds it from protocol events (docs/protocol.md).
// Plain TypeScript with no DOM: unit-tested with node's test runner on event streams recorded from a
// real `agentls serve`. It mutates in place and records what changed, so the renderer redraws only that.
import type {
  AgentConfig,
  AgentEvent,
  EffortInfo,
  FileDiff,
  MessageInfo,
  MessageWithParts,
  ModeInfo,
  Part,
  PermissionRequest,
  PlanReviewRequest,
  QueuedPrompt,
  QuestionRequest,
  Session,
  SessionStatusInfo as SessionStatus,
  Todo,
} from "../shared/protocol.ts";
import type { ServerPhase, Snapshot } from "../src/chat/messages.ts";
import { applyChildEvent, askedByTask, follow, loadChildren, type Subtasks } from "./subtasks.ts";
import { applyQueueEvent } from "./queueState.ts";
import { applyBackgroundEvent, type Background, emptyBackground } from "./backgroundState.ts";

export interface MessageView {
  info: MessageInfo;
  parts: Part[];
}

/** What changed since the renderer last drew (it clears this after each frame). */
export interface Dirty {
  parts: Set<string>;
  messages: Set<string>; // a message's info, or its list of parts
  transcript: boolean; // messages added or removed
  dialogs: boolean;
  sessions: boolean;
  header: boolean; // status, tokens, todos, changes, config, server phase
  queue: boolean; // the queued prompts
  background: boolean; // the background sub-agents and shells
}

/** What the view keeps of `agent/session/mode` and `agent/session/effort` (events update them too). */
export type ModeState = Pick<ModeInfo, "mode" | "modes">;
export type EffortState = Pick<EffortInfo, "effort" | "levels">;

export interface ChatState {
  session: Session | null;
  sessions: Session[];
  moreSessions: boolean;
  order: string[];
  messages: Map<string, MessageView>;
  partOwner: Map<string, string>; // partID → messageID
  permissions: PermissionRequest[];
  questions: QuestionRequest[];
  plans: PlanReviewRequest[];
  todos: Todo[];
  changes: FileDiff[];
  status: SessionStatus;
  config: AgentConfig | null;
  server: { phase: ServerPhase; message?: string };
  error: string | null;
  errorKind: string | null; // the error's name: "auth" offers "Set API Key"
  /** Errors of turns that failed with no assistant message to carry them, by the message they follow. */
  turnErrors: Map<string, string>;
  warnings: string[]; // agent.warning messages of this session (or of none), newest last
  reviewPending: number; // the session's agent changes waiting for Keep/Undo (the host's count)
  watchers: string[]; // the other front ends of the agent host that show the session (session.watchers)
  subtasks: Subtasks; // child sessions of its task cards (webview/subtasks.ts)
  moreBefore: boolean; // older messages are on the server (webview/virtual.ts loads them)
  queue: QueuedPrompt[]; // prompts waiting for the running turn to end, next first
  background: Background; // the session's background sub-agents and shells (webview/backgroundState.ts)
  mode: ModeState | null; // the session's mode (null: the server has none to offer)
  effort: EffortState | null; // the session's effort and its model's levels
  dirty: Dirty;
}

const MAX_WARNINGS = 3;

export function emptyDirty(): Dirty {
  return { parts: new Set(), messages: new Set(), transcript: false, dialogs: false, sessions: false, header: false, queue: false, background: false };
}

export function initialState(): ChatState {
  return {
    session: null,
    sessions: [],
    moreSessions: false,
    order: [],
    messages: new Map(),
    partOwner: new Map(),
    permissions: [],
    questions: [],
    plans: [],
    todos: [],
    changes: [],
    status: { type: "idle" },
    config: null,
    server: { phase: "starting" },
    error: null,
    errorKind: null,
    turnErrors: new Map(),
    warnings: [],
    reviewPending: 0,
    watchers: [],
    subtasks: new Map(),
    moreBefore: false,
    queue: [],
    background: emptyBackground(),
    mode: null,
    effort: null,
    dirty: { ...emptyDirty(), transcript: true, dialogs: true, sessions: true, header: true, queue: true, background: true },
  };
}

function markAll(state: ChatState): void {
  state.dirty = { parts: new Set(), messages: new Set(), transcript: true, dialogs: true, sessions: true, header: true, queue: true, background: true };
}

/** Replace everything with what the server has for a session (or nothing). */
export function loadSnapshot(state: ChatState, snapshot: Snapshot | null): void {
  state.session = snapshot?.session ?? null;
  state.order = [];
  state.messages = new Map();
  state.partOwner = new Map();
  for (const m of snapshot?.messages ?? []) {
    state.order.push(m.info.id);
    state.messages.set(m.info.id, { info: m.info, parts: m.parts.map((p) => ({ ...p }) as Part) });
    for (const p of m.parts) state.partOwner.set(p.id, m.info.id);
  }
  state.moreBefore = snapshot?.moreBefore === true;
  state.subtasks = new Map();
  for (const m of snapshot?.messages ?? []) for (const p of m.parts) follow(state.subtasks, p);
  loadChildren(state.subtasks, snapshot?.children);
  state.permissions = snapshot?.permissions ?? [];
  state.questions = snapshot?.questions ?? [];
  state.plans = snapshot?.plans ?? [];
  state.todos = snapshot?.todos ?? [];
  state.changes = snapshot?.changes ?? [];
  state.status = snapshot?.busy ? { type: "busy" } : { type: "idle" };
  state.watchers = snapshot?.watchers ?? [];
  state.error = null;
  state.errorKind = null;
  state.turnErrors = new Map();
  state.warnings = [];
  state.queue = snapshot?.queue ?? [];
  state.background = snapshot?.background ?? emptyBackground();
  state.mode = snapshot?.mode ?? null;
  state.effort = snapshot?.effort ?? null;
  markAll(state);
}

export function setSessions(state: ChatState, sessions: Session[], append: boolean, more: boolean): void {
  const visible = sessions.filter((s) => s.parentID === undefined || s.parentID === null);
  state.sessions = append ? [...state.sessions, ...visible.filter((s) => !state.sessions.some((o) => o.id === s.id))] : visible;
  state.moreSessions = more;
  state.dirty.sessions = true;
}

/** A chat with no session yet: the mode and effort its session will start with (its pickers show them). */
export function setDraftControls(state: ChatState, mode: ModeInfo | undefined, effort: EffortInfo | undefined): void {
  if (state.session !== null) return; // the session arrived meanwhile: its own controls win
  state.mode = mode ?? null;
  state.effort = effort ?? null;
  state.dirty.header = true;
}

export function setConfig(state: ChatState, config: AgentConfig): void {
  state.config = config;
  state.dirty.header = true;
}

export function setServer(state: ChatState, phase: ServerPhase, message?: string): void {
  state.server = { phase, message };
  state.dirty.header = true;
}

// Ids are ascending (time-ordered) strings, so inserting in id order keeps the transcript in order even
// when an event for an earlier message arrives late.
function insertSorted(list: string[], id: string): number {
  let i = list.length;
  while (i > 0 && list[i - 1] > id) i--;
  list.splice(i, 0, id);
  return i;
}

export function upsertMessage(state: ChatState, info: MessageInfo): MessageView {
  let view = state.messages.get(info.id);
  if (view === undefined) {
    view = { info, parts: [] };
    state.messages.set(info.id, view);
    insertSorted(state.order, info.id);
    state.dirty.transcript = true;
  } else {
    view.info = info;
  }
  state.dirty.messages.add(info.id);
  if (info.role === "assistant") state.dirty.header = true; // tokens, cost, context use
  return view;
}

function placeholder(state: ChatState, sessionID: string, messageID: string): MessageView {
  // A part can arrive before its message's info (events are not ordered across types): hold it.
  const view = state.messages.get(messageID);
  if (view !== undefined) return view;
  const info: MessageInfo = {
    role: "assistant",
    id: messageID,
    sessionID,
    parentID: "",
    time: { created: 0 },
    providerID: "",
    modelID: "",
    agent: "",
    mode: "",
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  };
  return upsertMessage(state, info);
}

function upsertPart(state: ChatState, incoming: Part): void {
  // A copy: deltas are appended to it in place, and the event object may be shared.
  const part = { ...incoming } as Part;
  const view = placeholder(state, part.sessionID, part.messageID);
  const index = view.parts.findIndex((p) => p.id === part.id);
  if (index >= 0) {
    view.parts[index] = part;
  } else {
    let i = view.parts.length;
    while (i > 0 && view.parts[i - 1].id > part.id) i--;
    view.parts.splice(i, 0, part);
    state.dirty.messages.add(view.info.id);
  }
  state.partOwner.set(part.id, view.info.id);
  state.dirty.parts.add(part.id);
  follow(state.subtasks, part);
  if (part.type === "step-finish") state.dirty.header = true;
}

function appendDelta(state: ChatState, p: { sessionID: string; messageID: string; partID: string; field: string; delta: string }): void {
  const view = placeholder(state, p.sessionID, p.messageID);
  let part = view.parts.find((x) => x.id === p.partID);
  if (part === undefined) {
    upsertPart(state, { id: p.partID, sessionID: p.sessionID, messageID: p.messageID, type: "text", text: "" });
    part = view.parts.find((x) => x.id === p.partID) as Part;
  }
  const record = part as unknown as Record<string, unknown>;
  const current = record[p.field];
  record[p.field] = (typeof current === "string" ? current : "") + p.delta;
  state.dirty.parts.add(part.id);
}

function removeMessage(state: ChatState, messageID: string): void {
  const view = state.messages.get(messageID);
  if (view === undefined) return;
  for (const p of view.parts) state.partOwner.delete(p.id);
  state.messages.delete(messageID);
  state.order = state.order.filter((id) => id !== messageID);
  state.dirty.transcript = true;
}

function eventSession(event: AgentEvent): string | undefined {
  const props = event.properties as { sessionID?: string; info?: { sessionID?: string }; part?: { sessionID: string }; request?: { sessionID: string } };
  return props.sessionID ?? props.info?.sessionID ?? props.part?.sessionID ?? props.request?.sessionID;
}

/** Apply one `agent/event`. Events of other sessions only touch the session list. */
export function applyEvent(state: ChatState, event: AgentEvent): void {
  switch (event.type) {
    case "session.created":
    case "session.updated": {
      const info = event.properties.info;
      if (info.parentID) break; // subagent sessions are shown through their parent's tool card
      const i = state.sessions.findIndex((s) => s.id === info.id);
      if (i >= 0) state.sessions[i] = info;
      else state.sessions.unshift(info);
      state.dirty.sessions = true;
      if (state.session?.id === info.id) {
        state.session = info;
        state.dirty.header = true;
        state.dirty.transcript = true; // a revert marks messages
      }
      return;
    }
    case "session.deleted":
      state.sessions = state.sessions.filter((s) => s.id !== event.properties.info.id);
      state.dirty.sessions = true;
      return;
    case "config.updated": {
      // New settings applied in the server: the pickers follow its new lists and defaults.
      const { changed: _changed, ...config } = event.properties;
      setConfig(state, { ...config, defaultModel: config.defaultModel ?? "" });
      return;
    }
    default:
      break;
  }
  const sessionID = eventSession(event);
  if (event.type === "agent.warning") {
    // Something failed without failing the turn: shown in the notice above the transcript.
    if (sessionID === undefined || sessionID === state.session?.id) {
      state.warnings = [...state.warnings, event.properties.message].slice(-MAX_WARNINGS);
      state.dirty.header = true;
    }
    return;
  }
  if (state.session === null) return;
  if (sessionID !== state.session.id) {
    // A sub-agent's event goes under its task card; its dialogs show here, naming the task.
    const card = sessionID === undefined ? undefined : applyChildEvent(state.subtasks, event, sessionID);
    if (card !== undefined) state.dirty.parts.add(card);
    const asked = event.type === "permission.asked" && askedByTask(state.subtasks, event.properties.request, state.session.id);
    const replied = event.type === "permission.replied" && state.permissions.some((r) => r.id === event.properties.requestID);
    if (!asked && !replied) return;
  } else {
    const queue = applyQueueEvent(state.queue, event);
    if (queue !== undefined) {
      state.queue = queue;
      state.dirty.queue = true;
      return;
    }
    const background = applyBackgroundEvent(state.background, event, state.session.id);
    if (background !== undefined) {
      state.background = background;
      state.dirty.background = true;
      return;
    }
  }
  switch (event.type) {
    case "session.watchers":
      state.watchers = event.properties.clients;
      state.dirty.header = true;
      return;
    case "session.status":
      state.status = event.properties.status;
      if (event.properties.status.type === "busy") {
        state.error = null;
        state.errorKind = null;
      }
      state.dirty.header = true;
      return;
    case "session.idle":
      state.status = { type: "idle" };
      state.dirty.header = true;
      return;
    case "session.error":
      if (event.properties.error.name !== "aborted") {
        state.error = event.properties.error.message;
        state.errorKind = event.properties.error.name;
        keepTurnError(state, event.properties.error.message);
      }
      state.dirty.header = true;
      return;
    case "session.diff":
      state.changes = event.properties.diff;
      state.dirty.header = true;
      return;
    case "session.compacted":
      state.dirty.transcript = true;
      return;
    case "message.updated": {
      const info = event.properties.info;
      // The answer carries the error itself: no second copy under the question.
      if (info.role === "assistant" && info.error) {
        if (state.turnErrors.delete(info.parentID)) state.dirty.messages.add(info.parentID);
        state.turnErrors.delete(info.id);
      }
      const view = upsertMessage(state, info);
      // A turn that ended: its texts are complete, and show what was held back while they streamed.
      if (info.role === "assistant" && (info.time.completed !== undefined || info.error)) {
        for (const p of view.parts) if (p.type === "text") state.dirty.parts.add(p.id);
      }
      return;
    }
    case "message.removed":
      removeMessage(state, event.properties.messageID);
      return;
    case "message.part.updated":
      upsertPart(state, event.properties.part);
      return;
    case "message.part.delta":
      appendDelta(state, event.properties);
      return;
    case "message.part.removed": {
      const view = state.messages.get(event.properties.messageID);
      if (view !== undefined) {
        view.parts = view.parts.filter((p) => p.id !== event.properties.partID);
        state.dirty.messages.add(view.info.id);
      }
      state.partOwner.delete(event.properties.partID);
      return;
    }
    case "permission.asked":
      if (!state.permissions.some((r) => r.id === event.properties.request.id)) state.permissions.push(event.properties.request);
      state.dirty.dialogs = true;
      return;
    case "permission.replied":
      state.permissions = state.permissions.filter((r) => r.id !== event.properties.requestID);
      state.dirty.dialogs = true;
      return;
    case "question.asked":
      if (!state.questions.some((r) => r.id === event.properties.request.id)) state.questions.push(event.properties.request);
      state.dirty.dialogs = true;
      return;
    case "question.replied":
    case "question.rejected":
      state.questions = state.questions.filter((r) => r.id !== event.properties.requestID);
      state.dirty.dialogs = true;
      return;
    case "plan.review.asked":
      if (!state.plans.some((r) => r.id === event.properties.request.id)) state.plans.push(event.properties.request);
      state.dirty.dialogs = true;
      return;
    case "plan.review.replied":
    case "plan.review.cancelled":
      state.plans = state.plans.filter((r) => r.id !== event.properties.requestID);
      state.dirty.dialogs = true;
      return;
    case "session.mode":
      // The list of modes stays what the server said; only the current one moves.
      state.mode = { modes: state.mode?.modes ?? [], mode: event.properties.mode };
      state.dirty.header = true;
      return;
    case "session.effort":
      state.effort = { effort: event.properties.effort, levels: event.properties.levels };
      state.dirty.header = true;
      return;
    case "todo.updated":
      state.todos = event.properties.todos;
      state.dirty.header = true;
      return;
    case "file.edited":
      return; // session.diff carries the totals; the tool card shows the edit itself
  }
}

/**
 * A turn's error stays in the transcript after the notice clears: under the answer that failed (its
 * message carries it), or, when the turn failed before an answer began, under the user's message.
 */
function keepTurnError(state: ChatState, message: string): void {
  const last = state.order[state.order.length - 1];
  if (last === undefined) return;
  const view = state.messages.get(last);
  if (view?.info.role === "assistant" && view.info.error) return;
  state.turnErrors.set(last, message);
  state.dirty.messages.add(last);
}

export function messagesOf(state: ChatState): MessageWithParts[] {
  return state.order.flatMap((id) => {
    const view = state.messages.get(id);
    return view ? [{ info: view.info, parts: view.parts }] : [];
  });
}
