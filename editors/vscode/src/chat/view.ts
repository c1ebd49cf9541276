// The chat view: a webview view that renders the session and turns the user's intents into
// `agent/*` requests. It forwards `agent/event`s in batches (one postMessage per ~frame, consecutive
// text deltas of a part merged) and rebuilds everything from the server after a reload or restart.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type {
  AgentConfig,
  AgentEvent,
  FileDiff,
  MessageWithParts,
  PermissionRequest,
  PromptMode,
  PromptPart,
  PlanReviewRequest,
  QuestionRequest,
  Session,
  SessionStatusInfo as SessionStatus,
  Todo,
} from "../../shared/protocol";
import { trace } from "../trace";
import { Actions } from "./actions";
import { EditorContext } from "./contextItems";
import { chatHtml } from "./html";
import { firstRunInfo, noModelMessage } from "./firstrun";
import { childMessages, dialogsOf } from "./subtasks";
import { MESSAGE_PAGE } from "./sessionTools";
import type { Attachment, FromWebview, ServerPhase, Snapshot, ToWebview } from "./messages";
import type { ChatHost } from "./host";
import { listQueue, removedByUser } from "./queue";
import { listBackground } from "./background";
import { attachmentParts } from "./slash";
import { optionalEffort, sessionControls } from "./pickers";

export const VIEW_ID = "agentls.chat";

/** A prompt with no model to go to (none in the settings, the config, or the agent). */
class NoModel extends Error {}
const CURRENT_KEY = "agentls.currentSession";
const PAGE = 30;
const FLUSH_MS = 16;

/** Where a chat is drawn: the sidebar's webview view, or an editor tab's webview panel (panel.ts). */
type Surface = Pick<vscode.WebviewView, "webview" | "onDidDispose" | "visible">;

/** The surface as the sidebar's view (a panel has no `show`), or none. */
function sidebarView(surface: Surface | undefined): vscode.WebviewView | undefined {
  return surface !== undefined && "show" in surface ? (surface as vscode.WebviewView) : undefined;
}

export class ChatView implements ChatHost, vscode.WebviewViewProvider, vscode.Disposable {
  private view: Surface | undefined;
  private ready = false;
  private pending: AgentEvent[] = [];
  /** Snapshots being fetched (events are held until they are posted). */
  private snapshots = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  readonly statuses = new Map<string, SessionStatus>();
  readonly permissions = new Map<string, PermissionRequest>();
  /** Who else shows each session (`session.watchers`: other front ends of the agent host). */
  readonly watchers = new Map<string, string[]>();
  private sessionValue: Session | undefined;
  /** The current session's agent changes waiting for review (src/review keeps the count). */
  private reviewPending = 0;
  /** Focus Chat ran before the view was ready: focus the prompt once it is. */
  private focusWhenReady = false;
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  /** The editor note that goes with each prompt (its chip in the view). */
  readonly editorContext: EditorContext;
  /** The current session or its status changed (the status bar listens). */
  readonly onDidChange = this.changedEmitter.event;
  readonly actions: Actions;
  private readonly resolvedEmitter = new vscode.EventEmitter<vscode.WebviewView>();
  /** VS Code made the view (it is shown for the first time, or again after it was disposed). */
  readonly onDidResolveView = this.resolvedEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly client: AgentClient,
    actions: (view: ChatView) => Actions,
    /** A chat in an editor tab keeps its own session (the sidebar's is remembered per workspace). */
    private readonly own?: { sessionID: string | undefined; reveal: () => void },
  ) {
    this.actions = actions(this);
    this.editorContext = new EditorContext(this);
    this.disposables.push(
      this.editorContext,
      this.actions.terminals,
      client.onEvent((event) => this.onEvent(event)),
      client.onReady(({ restarted }) => {
        // A new server process runs no turn and holds no dialog: forget what the old one was doing.
        if (restarted) {
          this.statuses.clear();
          this.permissions.clear();
          this.watchers.clear();
        }
        void this.refresh();
        void this.editorContext.show(); // its token count needs the server
      }),
      client.onPhase((phase) => this.post({ type: "server", phase: phase as ServerPhase, message: phase === "missing" ? client.problem : undefined })),
    );
  }

  get sessionID(): string | undefined {
    return this.own ? this.own.sessionID : this.context.workspaceState.get<string>(CURRENT_KEY);
  }

  /** Whether the chat is on screen now. */
  get visible(): boolean {
    return this.view?.visible === true;
  }

  get session(): Session | undefined {
    return this.sessionValue;
  }

  /** The sidebar's webview view (its badge and visibility events); none for an editor tab's chat. */
  get webviewView(): vscode.WebviewView | undefined {
    return sidebarView(this.view);
  }

  get status(): SessionStatus {
    const id = this.sessionID;
    return (id && this.statuses.get(id)) || { type: "idle" };
  }

  resolveWebviewView(view: Surface): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, "dist"), vscode.Uri.joinPath(this.context.extensionUri, "media")] };
    view.webview.html = chatHtml(view.webview, this.context.extensionUri, vscode.Uri.joinPath);
    view.webview.onDidReceiveMessage((message: FromWebview) => void this.onIntent(message), undefined, this.disposables);
    view.onDidDispose(() => {
      this.view = undefined;
      this.ready = false;
    });
    const sidebar = sidebarView(view);
    if (sidebar !== undefined) this.resolvedEmitter.fire(sidebar);
  }

  /** How many agent changes wait for review: the status line's "Review N changes". */
  setReviewPending(count: number): void {
    this.reviewPending = count;
    this.post({ type: "review", pending: count });
  }

  post(message: ToWebview): void {
    if (this.view !== undefined && this.ready) void this.view.webview.postMessage(message);
  }

  async reveal(): Promise<void> {
    if (this.own) return this.own.reveal();
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  /** Show the view with the keyboard focus in the prompt box (not on the view's body). */
  async focusPrompt(): Promise<void> {
    await this.reveal();
    if (this.ready) this.post({ type: "focusPrompt" });
    else this.focusWhenReady = true;
  }

  // --- events ------------------------------------------------------------------------------

  private onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "session.status": {
        const was = this.statuses.get(event.properties.sessionID)?.type ?? "idle";
        this.statuses.set(event.properties.sessionID, event.properties.status);
        if (event.properties.sessionID === this.sessionID) this.changedEmitter.fire();
        if (was === "idle" && event.properties.status.type === "busy") this.refreshEffort(event.properties.sessionID);
        break;
      }
      case "session.idle":
        void this.actions.turnEnded(event.properties.sessionID);
        this.statuses.set(event.properties.sessionID, { type: "idle" });
        if (event.properties.sessionID === this.sessionID) this.changedEmitter.fire();
        this.refreshEffort(event.properties.sessionID);
        break;
      case "session.updated":
        if (event.properties.info.id === this.sessionID) {
          this.sessionValue = event.properties.info;
          this.changedEmitter.fire();
        }
        break;
      case "session.deleted":
        if (event.properties.info.id === this.sessionID) void this.select(undefined);
        break;
      case "permission.asked":
        this.permissions.set(event.properties.request.id, event.properties.request);
        break;
      case "permission.replied":
        this.permissions.delete(event.properties.requestID);
        void this.actions.dialogClosed(event.properties.requestID);
        break;
      case "session.watchers":
        this.watchers.set(event.properties.sessionID, event.properties.clients);
        if (event.properties.sessionID === this.sessionID) this.changedEmitter.fire();
        break;
      default:
        break;
    }
    this.queue(event);
  }

  /**
   * The effort levels are those of the session's last-used model, which a turn on another model
   * changes without a `session.effort` event: read them again as a turn starts and ends, and hand
   * them to the view as that event (a session shown here only).
   */
  /**
   * The model picked for the next prompts (the prompt's model picker, `/model`; undefined: the
   * server's default): the effort picker shows its levels, and an effort set is checked against them.
   */
  get pickedModel(): string | undefined {
    return this.nextModel;
  }

  newSession(): Promise<void> {
    return this.actions.newSession();
  }

  pickModel(model: string | undefined): void {
    this.nextModel = model;
    const sessionID = this.sessionID;
    if (sessionID !== undefined) this.refreshEffort(sessionID);
    // An empty chat: the levels of the model its first prompt will go to.
    else void sessionControls(this.client, undefined, model).then((draft) => this.sessionID === undefined && this.post({ type: "draftControls", ...draft }));
  }

  private nextModel: string | undefined;

  private refreshEffort(sessionID: string): void {
    if (sessionID !== this.sessionID) return;
    void optionalEffort(this.client, sessionID, this.nextModel).then((info) => {
      if (info !== undefined && sessionID === this.sessionID) this.queue({ type: "session.effort", properties: { ...info, sessionID } });
    });
  }

  private queue(event: AgentEvent): void {
    const last = this.pending[this.pending.length - 1];
    if (
      event.type === "message.part.delta" &&
      last?.type === "message.part.delta" &&
      last.properties.partID === event.properties.partID &&
      last.properties.field === event.properties.field
    ) {
      // Merge into a copy: the event object may be shared with other listeners.
      this.pending[this.pending.length - 1] = {
        type: "message.part.delta",
        properties: { ...last.properties, delta: last.properties.delta + event.properties.delta },
      };
    } else {
      this.pending.push(event);
    }
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    // While a snapshot is being fetched, events wait: posted before it, they would be wiped by a
    // snapshot older than they are (a prompt sent right after a restart lost its whole answer).
    if (this.snapshots > 0) return;
    const events = this.pending;
    this.pending = [];
    if (events.length > 0) this.post({ type: "events", events });
  }

  // --- state from the server ---------------------------------------------------------------

  /** Send the view everything it shows, from the server (first show, reload, restart, switch). */
  async refresh(): Promise<void> {
    if (!this.ready || !this.client.running) return;
    try {
      await this.sendConfig();
      await this.sendSessions();
      await this.sendSnapshot();
      trace("viewReady", { sessionID: this.sessionID ?? null });
    } catch (err) {
      this.notice(`could not load the session: ${String(err)}`);
    }
  }

  /** The agents and models for the pickers (again after new settings: the defaults may have moved). */
  async sendConfig(): Promise<void> {
    const config = await this.client.request<AgentConfig>("agent/config", {});
    this.post({ type: "config", config });
    // No model yet: the first-run setup needs the providers the server knows.
    if (!config.defaultModel) this.post({ type: "firstRun", info: await firstRunInfo(this.client) });
  }

  async sendSessions(before?: string): Promise<void> {
    const params = before === undefined ? { limit: PAGE } : { limit: PAGE, before };
    const { sessions } = await this.client.request<{ sessions: Session[] }>("agent/session/list", params);
    this.post({ type: "sessions", sessions, append: before !== undefined, more: sessions.length === PAGE });
  }

  private async sendSnapshot(): Promise<void> {
    const id = this.sessionID;
    let snapshot: Snapshot | null = null;
    this.snapshots++;
    try {
      if (id !== undefined) {
        try {
          snapshot = await this.snapshot(id);
        } catch {
          // The session is gone (deleted elsewhere, or another data dir): start without one.
          await this.remember(undefined);
        }
      }
      // An empty chat has no session until the user sends or chooses something (one never used
      // is never stored), but shows the mode and effort its session will start with, pickable now.
      const draft = snapshot === null ? await sessionControls(this.client, undefined, this.pickedModel) : undefined;
      this.sessionValue = snapshot?.session;
      this.changedEmitter.fire();
      this.post({ type: "snapshot", snapshot });
      if (draft !== undefined && this.sessionID === undefined) this.post({ type: "draftControls", ...draft });
      if (id !== undefined && snapshot !== null) void this.sendChanges(id);
    } finally {
      // The events that arrived meanwhile go on top: replacements (messages, parts) are idempotent,
      // and a part's text is whole again at its next update.
      this.snapshots--;
      if (this.snapshots === 0 && this.pending.length > 0) this.timer ??= setTimeout(() => this.flush(), 0);
    }
  }

  private async snapshot(sessionID: string): Promise<Snapshot> {
    const c = this.client;
    const [session, messages, permissions, questions, plans, todos, queue, controls, background] = await Promise.all([
      c.request<Session>("agent/session/get", { sessionID }),
      c.request<{ messages: MessageWithParts[] }>("agent/session/messages", { sessionID, limit: MESSAGE_PAGE }),
      c.request<{ requests: PermissionRequest[] }>("agent/permission/list", {}),
      c.request<{ requests: QuestionRequest[] }>("agent/question/list", {}),
      c.request<{ requests: PlanReviewRequest[] }>("agent/plan/list", {}),
      c.request<{ todos: Todo[] }>("agent/session/todo", { sessionID }),
      listQueue(c, sessionID),
      sessionControls(c, sessionID, this.pickedModel),
      listBackground(c, sessionID),
    ]);
    for (const request of permissions.requests) this.permissions.set(request.id, request);
    const running = messages.messages.some((m) => m.info.role === "assistant" && m.info.time.completed === undefined && m.info.error === undefined);
    const children = await childMessages(c, messages.messages);
    return {
      session,
      messages: messages.messages,
      children,
      moreBefore: messages.messages.length === MESSAGE_PAGE,
      permissions: dialogsOf(permissions.requests, sessionID, children),
      questions: questions.requests.filter((r) => r.sessionID === sessionID),
      plans: plans.requests.filter((r) => r.sessionID === sessionID),
      todos: todos.todos,
      changes: [], // sendChanges: the session's diff reads snapshots, and must not hold up its messages
      busy: this.statuses.get(sessionID)?.type === "busy" || running,
      watchers: this.watchers.get(sessionID) ?? [],
      queue,
      background,
      ...controls,
    };
  }

  /** The session's changed files, after its messages are shown (as the `session.diff` event says them). */
  private async sendChanges(sessionID: string): Promise<void> {
    try {
      const { files } = await this.client.request<{ files: FileDiff[] }>("agent/session/diff", { sessionID });
      if (this.sessionID === sessionID) this.post({ type: "events", events: [{ type: "session.diff", properties: { sessionID, diff: files } }] });
    } catch (err) {
      trace("sessionDiffFailed", { sessionID, error: String(err) });
    }
  }

  private async remember(sessionID: string | undefined): Promise<void> {
    if (this.own) this.own.sessionID = sessionID;
    else await this.context.workspaceState.update(CURRENT_KEY, sessionID);
  }

  /** The session an empty chat is creating (shared: a prompt sent meanwhile goes to it, not to a second one). */
  private creating: Promise<string> | undefined;

  /** The current session, created first when the chat has none (`prepare` runs on it before it shows). */
  currentSession(prepare?: (sessionID: string) => Promise<void>): Promise<string> {
    const id = this.sessionID;
    if (id !== undefined) return Promise.resolve(id);
    this.creating ??= this.createSession(prepare).finally(() => (this.creating = undefined));
    return this.creating;
  }

  private async createSession(prepare?: (sessionID: string) => Promise<void>): Promise<string> {
    const session = await this.client.request<Session>("agent/session/create", {});
    if (prepare !== undefined) await prepare(session.id);
    await this.select(session.id);
    await this.sendSessions();
    return session.id;
  }

  /**
   * A session in a new git worktree of the project (`name` empty: the server names it from the
   * time), made at once and shown: unlike an empty chat, the worktree is what the user asked for.
   */
  async createWorktreeSession(name: string): Promise<Session> {
    const session = await this.client.request<Session>("agent/session/create", { worktree: name });
    trace("worktreeSession", { sessionID: session.id, directory: session.directory });
    await this.select(session.id);
    await this.sendSessions();
    return session;
  }

  async select(sessionID: string | undefined): Promise<void> {
    await this.remember(sessionID);
    await this.sendSnapshot();
  }

  notice(message: string): void {
    this.post({ type: "server", phase: this.client.phase as ServerPhase, message });
  }

  // --- intents -----------------------------------------------------------------------------

  /**
   * Send a prompt and wait for its turn. One that cannot be sent or fails (no server, no model, the
   * server crashed, an error) goes back into the prompt box, with the reason in the view: it is never
   * lost. `newIfBusy`: a prompt from a command goes to a new session when the current one is busy.
   */
  async prompt(text: string, attachments: Attachment[], agent?: string, model?: string, options: { newIfBusy?: boolean; editorContext?: boolean; mode?: PromptMode } = {}): Promise<void> {
    // The notice about an earlier prompt is old news once another goes.
    if (this.promptNotice) this.clearNotice();
    const progress = { sent: false };
    try {
      await this.send(text, attachments, agent, model, options.newIfBusy === true, progress, options.editorContext === true, options.mode);
    } catch (err) {
      // An abort answers with -32800; the transcript already shows it, and the user meant it. So
      // did removing a queued prompt.
      if ((err as { code?: number }).code === -32800 || removedByUser(err)) return;
      const reason = err instanceof NoModel ? "" : ((err as Error).message ?? String(err));
      trace("promptRestored", { reason, sent: progress.sent });
      this.post({ type: "restorePrompt", text, attachments });
      let message: string;
      if (err instanceof NoModel) message = noModelMessage;
      else if (!this.client.running) message = `Your prompt is back in the box: ${this.client.problem ?? reason}`;
      else if (progress.sent) message = `The turn failed; your prompt is back in the box: ${reason}`;
      else message = `The prompt was not sent (it is back in the box): ${reason}`;
      this.notice(message);
      this.promptNotice = true;
    }
  }

  /** Clear the notice above the transcript (what the server phase alone says stays). */
  clearNotice(): void {
    this.promptNotice = false;
    this.post({ type: "server", phase: this.client.phase as ServerPhase, message: this.client.phase === "missing" ? this.client.problem : undefined });
  }

  private promptNotice = false;

  private async send(text: string, attachments: Attachment[], agent: string | undefined, model: string | undefined, newIfBusy: boolean, progress: { sent: boolean }, editorContext = false, mode?: PromptMode): Promise<void> {
    if (!model) {
      const config = await this.client.request<AgentConfig>("agent/config", {});
      const agentModel = config.agents.find((a) => a.name === (agent || config.defaultAgent))?.model;
      if (!config.defaultModel && !agentModel) throw new NoModel();
    }
    let sessionID = this.sessionID;
    if (sessionID === undefined) sessionID = await this.currentSession();
    else if (newIfBusy && this.status.type !== "idle") sessionID = await this.createSession();
    const parts: PromptPart[] = [];
    if (text.trim()) parts.push({ type: "text", text });
    const note = editorContext ? this.editorContext.item() : undefined;
    if (note !== undefined) parts.push({ type: "context", item: note });
    parts.push(...attachmentParts(attachments));
    if (parts.length === 0) return;
    const params: Record<string, unknown> = { sessionID, parts };
    if (agent) params.agent = agent;
    if (model) params.model = model;
    if (mode) params.mode = mode;
    this.statuses.set(sessionID, { type: "busy" });
    this.changedEmitter.fire();
    let answer: MessageWithParts | undefined;
    try {
      progress.sent = true;
      answer = await this.client.request<MessageWithParts>("agent/session/prompt", params);
    } catch (err) {
      // The server ends the turn with session.idle; a server gone sends nothing: not busy any more.
      if (!this.client.running) {
        this.statuses.set(sessionID, { type: "idle" });
        this.changedEmitter.fire();
      }
      throw err;
    }
    // A turn that failed (the provider kept failing, a bad key) answers with its error set; an
    // aborted one was the user's doing.
    const error = answer?.info.role === "assistant" ? answer.info.error : undefined;
    if (error !== undefined && error.name !== "aborted") throw new Error(error.message);
  }

  async abort(): Promise<void> {
    const sessionID = this.sessionID;
    if (sessionID !== undefined) await this.client.request("agent/session/abort", { sessionID });
  }

  private async onIntent(message: FromWebview): Promise<void> {
    try {
      if (message.type === "ready") {
        this.ready = true;
        this.post({ type: "server", phase: this.client.phase as ServerPhase, message: this.client.problem });
        this.post({ type: "review", pending: this.reviewPending });
        if (this.focusWhenReady) this.post({ type: "focusPrompt" });
        this.focusWhenReady = false;
        await this.refresh();
        void this.editorContext.show();
      } else if (message.type === "prompt") {
        await this.prompt(message.text, message.attachments, message.agent, message.model, { editorContext: message.editorContext === true, mode: message.mode });
      } else if (message.type === "abort") {
        await this.abort();
      } else {
        await this.actions.handle(message);
      }
    } catch (err) {
      this.notice((err as Error).message ?? String(err));
    }
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
    this.changedEmitter.dispose();
    this.resolvedEmitter.dispose();
  }
}
