// The agent protocol as docs/protocol.md defines it: shared by the extension host and the webview.
// Only the fields the client reads are typed precisely; the rest stay `unknown`, never `any`.

export type JsonObject = { [key: string]: unknown };

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Session {
  id: string;
  projectID: string;
  parentID?: string;
  title: string;
  directory: string;
  time: { created: number; updated: number };
  revert?: { messageID: string; partID?: string };
  summary?: { additions: number; deletions: number; files: number };
}

export interface ModelRef {
  providerID: string;
  modelID: string;
}

export interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export interface MessageError {
  name: string;
  message: string;
  status?: number;
  retryable?: boolean;
}

export interface UserMessage {
  role: "user";
  id: string;
  sessionID: string;
  time: { created: number };
  agent: string;
  model: ModelRef;
}

export interface AssistantMessage {
  role: "assistant";
  id: string;
  sessionID: string;
  parentID: string;
  time: { created: number; completed?: number };
  error?: MessageError;
  providerID: string;
  modelID: string;
  agent: string;
  mode: string;
  cost: number;
  tokens: Tokens;
  finish?: string;
  summary?: boolean;
}

export type MessageInfo = UserMessage | AssistantMessage;

interface PartBase {
  id: string;
  sessionID: string;
  messageID: string;
}

export interface TextPart extends PartBase {
  type: "text";
  text: string;
  /** `end` is set once the text is complete (an assistant's text streams until then). */
  time?: { start: number; end?: number };
  synthetic?: boolean;
  ignored?: boolean;
}

export interface ReasoningPart extends PartBase {
  type: "reasoning";
  text: string;
}

export interface FilePart extends PartBase {
  type: "file";
  mime: string;
  filename?: string;
  url: string;
  source?: { type: string; path: string; start?: number; end?: number };
}

export type ToolState =
  | { status: "pending"; input: JsonObject; raw?: string }
  | { status: "running"; input: JsonObject; title?: string; metadata?: JsonObject; time: { start: number } }
  | {
      status: "completed";
      input: JsonObject;
      output: string;
      title: string;
      metadata: JsonObject;
      time: { start: number; end: number };
    }
  | { status: "error"; input: JsonObject; error: string; metadata?: JsonObject; time: { start: number; end: number } };

export interface ToolPart extends PartBase {
  type: "tool";
  callID: string;
  tool: string;
  state: ToolState;
}

export interface StepStartPart extends PartBase {
  type: "step-start";
}

export interface StepFinishPart extends PartBase {
  type: "step-finish";
  reason: string;
  tokens: Tokens;
  cost: number;
}

export interface RetryPart extends PartBase {
  type: "retry";
  attempt: number;
  error: MessageError;
  time: { created: number };
}

export interface CompactionPart extends PartBase {
  type: "compaction";
  auto: boolean;
}

/** One run of a user's hook command (`hooks` in agentls config, `.claude/settings.json`). */
export interface HookPart extends PartBase {
  type: "hook";
  event: string;
  command: string;
  source: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
  effect: "denied" | "asked" | "blocked" | "stopped" | "context" | null;
  time: number;
}

export interface OtherPart extends PartBase {
  type: "snapshot" | "patch" | "agent" | "subtask";
  [key: string]: unknown;
}

export type Part =
  | TextPart
  | ReasoningPart
  | FilePart
  | ToolPart
  | StepStartPart
  | StepFinishPart
  | RetryPart
  | CompactionPart
  | HookPart
  | OtherPart;

export interface MessageWithParts {
  info: MessageInfo;
  parts: Part[];
}

export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed" | "cancelled";
  priority: "high" | "medium" | "low";
  id?: string;
}

export interface PermissionRequest {
  id: string;
  sessionID: string;
  messageID?: string;
  callID?: string;
  permission: string;
  patterns: string[];
  always: string[];
  title?: string;
  metadata: JsonObject;
  /** Asked inside a sub-agent's session: the parent's task call that asks (docs/protocol.md). */
  task?: TaskOrigin;
}

/** One session found by agent/session/search (docs/protocol.md). */
export interface SearchHit {
  session: Session;
  snippet: string;
  highlights: [number, number][];
  messageID: string | null;
  partID: string | null;
}

export interface TaskOrigin {
  sessionID: string;
  messageID: string;
  callID: string;
  description: string;
  subagent: string;
}

export interface QuestionOption {
  label: string;
  description?: string;
}

export interface Question {
  question: string;
  header?: string;
  options: QuestionOption[];
  multiple?: boolean;
}

export interface QuestionRequest {
  id: string;
  sessionID: string;
  messageID?: string;
  callID?: string;
  questions: Question[];
}

export interface SessionStatus {
  type: "idle" | "busy" | "retry";
  attempt?: number;
  message?: string;
  next?: number;
}

export interface FileDiff {
  file: string;
  before?: string;
  after?: string;
  additions: number;
  deletions: number;
  patch?: string;
}

export type AgentEvent =
  | { type: "session.created" | "session.updated" | "session.deleted"; properties: { info: Session } }
  | { type: "session.status"; properties: { sessionID: string; status: SessionStatus } }
  | { type: "session.idle"; properties: { sessionID: string } }
  | { type: "session.error"; properties: { sessionID?: string; error: MessageError } }
  | { type: "session.diff"; properties: { sessionID: string; diff: FileDiff[] } }
  | { type: "session.compacted"; properties: { sessionID: string } }
  | { type: "message.updated"; properties: { info: MessageInfo } }
  | { type: "message.removed"; properties: { sessionID: string; messageID: string } }
  | { type: "message.part.updated"; properties: { part: Part } }
  | {
      type: "message.part.delta";
      properties: { sessionID: string; messageID: string; partID: string; field: string; delta: string };
    }
  | { type: "message.part.removed"; properties: { sessionID: string; messageID: string; partID: string } }
  | { type: "permission.asked"; properties: { request: PermissionRequest } }
  | { type: "permission.replied"; properties: { sessionID: string; requestID: string; reply: string } }
  | { type: "question.asked"; properties: { request: QuestionRequest } }
  | { type: "question.replied"; properties: { sessionID: string; requestID: string; answers: string[][] } }
  | { type: "question.rejected"; properties: { sessionID: string; requestID: string } }
  | { type: "todo.updated"; properties: { sessionID: string; todos: Todo[] } }
  | { type: "agent.warning"; properties: { kind: "snapshot" | "small-model" | "abort" | "review" | "sandbox" | "hooks"; message: string; sessionID?: string } }
  | {
      type: "file.edited";
      properties: { file: string; sessionID?: string; messageID?: string; callID?: string; diff?: string };
    }
  | { type: "config.updated"; properties: ConfigUpdate }
  | { type: "review.updated"; properties: { sessionID: string; changed: import("./review/hunks").Hunk[]; pending: number } }
  | { type: "queue.added"; properties: { sessionID: string; item: QueuedPrompt; position: number } }
  | { type: "queue.updated"; properties: { sessionID: string; item: QueuedPrompt } }
  | { type: "queue.removed"; properties: { sessionID: string; id: string; reason: "removed" | "cancelled" | "closed" } }
  | { type: "queue.started"; properties: { sessionID: string; id: string } }
  | { type: "session.mode"; properties: { sessionID: string; mode: string } }
  | { type: "session.effort"; properties: { sessionID: string; effort: string; levels: string[] } };

/** `agent/session/mode`: the session's mode (ask, auto, plan) and the modes there are. */
export interface ModeInfo {
  mode: string;
  modes: { id: string; name: string; description?: string }[];
}

/** `agent/session/effort`: how hard the model thinks, and the levels it supports ([]: no control). */
export interface EffortInfo {
  effort: string;
  levels: string[];
}

/** A slash command (`agent/commands`): a built-in or the user's own (a Markdown template). */
export interface CommandInfo {
  name: string;
  description: string;
  kind: "builtin" | "user";
  source: string;
  hint: string;
  agent?: string | null;
  model?: string | null;
  subtask?: boolean;
}

/** `agent/commands`: the commands, the command files that could not be read (`file:line: why`), warnings. */
export interface CommandList {
  commands: CommandInfo[];
  errors: string[];
  warnings: string[];
}

/** What a prompt sent while a turn runs does (`agent/session/prompt` `mode`). */
export type PromptMode = "queue" | "steer" | "interrupt";

/** A prompt waiting for the running turn to end (`agent/session/queue/list`); parts in the core's form. */
export interface QueuedPrompt {
  id: string;
  sessionID: string;
  parts: QueuedPart[];
  agent?: string | null;
  model?: string | null;
  time: number;
}

export type QueuedPart =
  | { type: "text"; text: string }
  | { type: "file"; path: string; mime?: string | null; range?: Range | null; data?: string | null }
  | { type: "agent"; name: string };

/** `config.updated`: the server applied new settings; the new `agent/config` answer and what changed. */
export interface ConfigUpdate extends Omit<AgentConfig, "defaultModel"> {
  changed: string[];
  defaultModel?: string;
}

export interface AgentInfo {
  name: string;
  description?: string;
  mode: string;
  /** The model its prompts use unless the prompt names another (null: the default model). */
  model?: string | null;
}

export interface AgentConfig {
  agents: AgentInfo[];
  models: string[];
  defaultAgent: string;
  defaultModel: string;
  modelLimits?: Record<string, { context: number; output: number }>;
}

export type PromptPart =
  | { type: "text"; text: string }
  | { type: "file"; uri: string; range?: Range; mime?: string }
  /** An image sent as its content (base64), not as a file the server reads. */
  | { type: "file"; mime: string; data: string; name?: string }
  | { type: "agent"; name: string }
  /** A context item: resolved (`agent/context/resolve`), or an `item` the server resolves on arrival. */
  | { type: "context"; kind: string; label: string; text: string }
  | { type: "context"; item: { kind: string } & Record<string, unknown> };

export type PermissionReply = "once" | "always" | "reject";
