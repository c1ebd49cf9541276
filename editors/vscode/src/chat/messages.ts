// The messages between the extension host and the chat webview. The webview renders state and posts
// intents; every request to the server is made by the extension host.
import type {
  AgentConfig,
  AgentEvent,
  BackgroundListResult,
  FileDiff,
  MessageWithParts,
  PermissionAnswer,
  CommandInfo,
  EffortInfo,
  ModeInfo,
  PermissionRequest,
  PlanReviewRequest,
  PromptMode,
  QueuedPrompt,
  QuestionRequest,
  Range,
  SearchHit,
  Session,
  Todo,
} from "../../shared/protocol";

/** A file (or a range of it) the server reads by URI, or an image whose content goes with the prompt. */
export type Attachment =
  | { uri: string; label: string; range?: Range; image?: undefined; context?: undefined }
  | { uri?: string; label: string; range?: undefined; image: ImageData; context?: undefined }
  /** A context item (@folder, @problems …) as the server resolved it: sent verbatim (src/chat/contextItems.ts). */
  | { uri?: undefined; label: string; range?: undefined; image?: undefined; context: ResolvedContext };

/** A context item as `agent/context/resolve` answers it: the text the model sees and its tokens. */
export interface ResolvedContext {
  kind: string;
  label: string;
  text: string;
  tokens: number;
  error?: string;
}

/** An image's content: its type and base64 data (what `agent/session/prompt` takes as `data`). */
export interface ImageData {
  mime: string;
  data: string;
}

/** The image types the server takes inline (docs/protocol.md), by file extension, and its size limit. */
export const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };
export const MAX_IMAGE_BYTES = 10_000_000;

/** Everything the view shows for one session, as the server has it (after a switch, reload or restart). */
export interface Snapshot {
  session: Session;
  messages: MessageWithParts[];
  permissions: PermissionRequest[];
  questions: QuestionRequest[];
  /** Plans waiting for review (agent/plan/list); absent: none. */
  plans?: PlanReviewRequest[];
  todos: Todo[];
  changes: FileDiff[];
  busy: boolean;
  /** Who else shows the session (other front ends of the agent host; absent: no one). */
  watchers?: string[];
  /** Older messages than `messages` are on the server (the newest page is sent; webview/virtual.ts). */
  moreBefore?: boolean;
  /** The messages of the session's sub-agents (child sessions of its task cards), by child session. */
  children?: Record<string, MessageWithParts[]>;
  /** Prompts waiting for the running turn (`agent/session/queue/list`), next first. */
  queue?: QueuedPrompt[];
  /** The session's background sub-agents and shells (`agent/background/list`; absent: an older server). */
  background?: BackgroundListResult;
  /** The session's mode and effort (absent: the server has no such request). */
  mode?: ModeInfo;
  effort?: EffortInfo;
}

/** A provider the server knows (`agent/providers`): never its key, only whether it has one. */
export interface ProviderInfo {
  id: string;
  keyEnv: string | null;
  hasKey: boolean;
  configured: boolean;
  models: string[];
}

/** What the first-run setup offers while no model is configured. */
export interface FirstRunInfo {
  providers: ProviderInfo[];
  error?: string;
}

export type ServerPhase = "starting" | "running" | "restarting" | "stopped" | "missing";

export type ToWebview =
  | { type: "events"; events: AgentEvent[] }
  | { type: "snapshot"; snapshot: Snapshot | null }
  /** A chat with no session yet: the mode and effort its session will start with (pickable now). */
  | { type: "draftControls"; mode?: ModeInfo; effort?: EffortInfo }
  | { type: "sessions"; sessions: Session[]; append: boolean; more: boolean }
  | { type: "config"; config: AgentConfig }
  | { type: "server"; phase: ServerPhase; message?: string }
  /** `mention`: the answer to an `@` typed in the prompt, whose file name goes after that `@`. */
  | { type: "attach"; attachments: Attachment[]; mention?: boolean }
  | { type: "focusPrompt"; text?: string }
  /** No model is configured: show the first-run setup. */
  | { type: "firstRun"; info: FirstRunInfo }
  /** A prompt that was not sent or whose turn failed: back into the box. */
  | { type: "restorePrompt"; text: string; attachments: Attachment[] }
  /** The editor note's chip (the active file and line, its tokens); none: the note is off. */
  | { type: "editorContext"; chip?: { label: string; tokens?: number } }
  | { type: "searchResults"; query: string; hits: SearchHit[]; error?: string }
  | { type: "olderMessages"; sessionID: string; messages: MessageWithParts[]; more: boolean }
  /** The `/` menu's commands (`agent/commands`), and the command files that could not be read. */
  | { type: "commands"; commands: CommandInfo[]; errors: string[] }
  /** The current session's agent changes waiting for review (shown in the status line). */
  | { type: "review"; pending: number };

export type FromWebview =
  | { type: "ready" }
  /** `editorContext`: the editor note's chip was there (not removed) when the prompt was sent;
   * `mode`: what a prompt sent while a turn runs does (queue, steer, or stop and send). */
  | { type: "prompt"; text: string; attachments: Attachment[]; agent?: string; model?: string; editorContext?: boolean; mode?: PromptMode }
  /** A queued prompt's text edited (its attachments stay), or the prompt taken out of the queue. */
  | { type: "queueUpdate"; queueID: string; text: string }
  | { type: "queueRemove"; queueID: string }
  /** The `/` menu: list the commands; run one in the session; the client-side `/export`. */
  | { type: "listCommands" }
  | { type: "command"; command: string; arguments: string; attachments: Attachment[] }
  /** The mode or effort picked in the header (or by /mode, /effort); none given: ask with a quick pick. */
  | { type: "setMode"; mode?: string }
  | { type: "setEffort"; effort?: string }
  /** The model picked for the next prompts (none: the server's default): the effort picker follows it. */
  | { type: "modelPicked"; model?: string }
  | { type: "abort" }
  | { type: "newSession" }
  /** "New session in a worktree": the host asks for its name (agentls.newWorktreeSession). */
  | { type: "newWorktreeSession" }
  | { type: "switchSession"; sessionID: string }
  | { type: "renameSession"; sessionID: string }
  | { type: "deleteSession"; sessionID: string }
  | { type: "forkSession"; sessionID: string; messageID?: string }
  | { type: "moreSessions"; before: string }
  | { type: "permission"; requestID: string; reply: PermissionAnswer; feedback?: boolean }
  | { type: "showPermissionDiff"; requestID: string }
  | { type: "question"; requestID: string; answers: string[][] }
  | { type: "questionReject"; requestID: string }
  | { type: "plan"; requestID: string; action: "open" | "approve" | "revise" | "reject" }
  | { type: "revert"; messageID: string }
  | { type: "unrevert" }
  | { type: "openChange"; file: string }
  | { type: "reviewChanges" }
  | { type: "setApiKey" }
  | { type: "openToolDiff"; file: string; patch: string }
  | { type: "pickFiles"; mention?: boolean }
  | { type: "pickImages" }
  | { type: "attachUris"; uris: string[] }
  | { type: "attachSelection" }
  | { type: "warn"; message: string }
  | { type: "openLink"; href: string }
  | { type: "openFile"; file: string }
  | { type: "setup"; provider: string; model: string; apiKey?: string }
  | { type: "openSetting"; setting: string }
  /** A code block of an answer: to the clipboard, or into the active editor at its selection. */
  | { type: "copyCode"; text: string }
  | { type: "insertCode"; text: string }
  | { type: "searchSessions"; query: string }
  /** The session as Markdown in a new editor (none: the view's session, as `/export` does). */
  | { type: "exportSession"; sessionID?: string }
  | { type: "openInTab"; sessionID: string }
  | { type: "loadOlder"; sessionID: string; before: string }
  /** Background work (webview/background.ts): stop a sub-agent, send it a message (asked for in an
   * input box), kill a background shell. */
  | { type: "backgroundStop"; sessionID: string }
  | { type: "backgroundMessage"; sessionID: string; description?: string }
  | { type: "shellStop"; shellID: string };
