// The agentls server as a child the extension owns: started over stdio, restarted when it dies (the
// user is told once per restart), and restarted when a setting the server reads changes.
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditRequest,
  CloseAction,
  DidChangeConfigurationNotification,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  type FeatureState,
  type InitializeParams,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  type StaticFeature,
} from "vscode-languageclient/node";
import { keyEnvironment } from "../keys";
import type { AgentEvent, JsonObject, NextEditReady } from "../../shared/protocol";
import { findServer, readSettings } from "../settings";
import { trace } from "../trace";
import { applyAgentEdit } from "./applyEdit";
import { InlineEdits } from "./inlineEdit";
import { initializationOptions } from "./init_options";
import { lspTriggerKind, showNextEdit } from "./nextEdits";
import { answerEditorQuery, EDITOR_QUERIES } from "./editorQuery";
import { StderrTail } from "./tail";
import { SerialRestart } from "./serial";
import { checkServerPath } from "./verify";

/** The server's own commands the extension runs itself (the lightbulb's fix and explain). */
export type CommandHandler = (command: string, args: unknown[]) => Promise<unknown>;
export const NOT_FOUND =
  "the `agentls` server was not found (looked at the agentls.server.path setting, the workspace's .venv and PATH). " +
  "Install it with `pip install agentls` (or `./scripts/setup` in an agentls checkout), or set agentls.server.path.";
export const LOCAL_COMMANDS = new Set(["agentls.fix", "agentls.explain", "agentls.mode", "agentls.effort"]);

/** What the extension announces: a plugin client that saves the agent's edits itself and answers the
 * agent's questions to VS Code's language servers (shared contract). */
class AgentCapability implements StaticFeature {
  fillClientCapabilities(capabilities: InitializeParams["capabilities"]): void {
    const experimental = (capabilities.experimental ?? {}) as JsonObject;
    capabilities.experimental = { ...experimental, agent: { version: 1, savesEdits: true, editorQueries: EDITOR_QUERIES } };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: "static" };
  }
  clear(): void {}
}

/**
 * A language client whose failed first start the extension reports itself: one message that names
 * the server and what it said, instead of that and the client's forced "couldn't create connection
 * to server" beside it. The client's other forced popups (a failed restart after a crash) stay.
 */
class AgentLanguageClient extends LanguageClient {
  /** Inside the extension's own `start()`, which reports a failure. */
  reportsStart = false;

  override error(message: string, data?: unknown, showNotification?: boolean | "force"): void {
    super.error(message, data, this.reportsStart && showNotification === "force" ? false : showNotification);
  }
}

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export type ServerPhase = "starting" | "running" | "restarting" | "stopped" | "missing";

export class AgentClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private stopping = false;
  private restarts: number[] = [];
  private readonly eventEmitter = new vscode.EventEmitter<AgentEvent>();
  private readonly readyEmitter = new vscode.EventEmitter<{ restarted: boolean }>();
  private readonly phaseEmitter = new vscode.EventEmitter<ServerPhase>();
  private started = false;
  private readonly stderr: StderrTail;
  private phaseValue: ServerPhase = "stopped";
  private readonly restarter = new SerialRestart(() => this.stop(), () => this.start());
  // Next edits ghost text cannot show (a replacement) are shown by the extension (inlineEdit.ts).
  private readonly inlineEdits = new InlineEdits();
  /** Protocol events (`agent/event`), from every session of the project. */
  readonly onEvent = this.eventEmitter.event;
  /** The server answered `initialize` (again, after a restart: rebuild the state then). */
  readonly onReady = this.readyEmitter.event;
  readonly onPhase = this.phaseEmitter.event;

  /** Runs the lightbulb's commands in the chat view instead of the server's plain path. */
  commandHandler: CommandHandler | undefined;
  /** The server the extension installed itself: the last resort, after the setting and PATH. */
  managedServer: (() => Promise<string | undefined>) | undefined;
  /** Why the server is not running, when the extension knows (a wrong path, no server found). */
  problem: string | undefined;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly onMissing: (message: string) => void,
    private readonly keys: () => Readonly<Record<string, string>> = () => ({}),
  ) {
    this.stderr = new StderrTail(output);
  }

  get phase(): ServerPhase {
    return this.phaseValue;
  }

  private setPhase(phase: ServerPhase): void {
    this.phaseValue = phase;
    this.phaseEmitter.fire(phase);
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  async start(): Promise<void> {
    const settings = readSettings(this.keys());
    // agentls.host "remote" without a usable agentls.hostAddress: said once per start, not a failure.
    if (settings.hostProblem !== undefined) void vscode.window.showWarningMessage(`agentls: ${settings.hostProblem}`);
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    let location = findServer(settings, folders, process.env.PATH ?? "", vscode.workspace.isTrusted);
    const managed = location === undefined ? await this.managedServer?.() : undefined;
    if (managed !== undefined) location = { command: managed, fromSetting: false };
    // A wrong setting is named with its cause, once, and never started (another executable failed
    // the handshake and was restarted five times, each with a notification).
    const problem = location?.fromSetting ? await checkServerPath(location.command) : undefined;
    if (location === undefined || problem !== undefined) {
      trace("serverMissing", { setting: settings.serverPath, folders, problem: problem ?? null });
      this.problem = problem ?? NOT_FOUND;
      this.setPhase("missing");
      this.onMissing(this.problem);
      return;
    }
    this.problem = undefined;
    const command = location.command;
    // A server that never finished its handshake is not restarted when it exits, even if the client
    // says so after `start()` failed (it does: that close came after the failure and restarted a
    // broken server five times, each with a popup that hid the one naming the cause).
    let handshaken = false;
    // A client replaced by a restart may report its close late: only the current one restarts.
    let self: LanguageClient | undefined;
    const serverOptions: ServerOptions = {
      command,
      args: settings.serverArgs,
      // No `transport`: TransportKind.stdio would append `--stdio`, which `agentls serve` does not take.
      // The API keys travel in the environment only (the config names the variables): never in an
      // LSP message, which a verbose trace would print. A new key needs a new process (`restart`).
      // A remote host's token file (agentls.hostTokenFile) the same way: its path, never the token.
      options: {
        cwd: folders[0],
        env: {
          ...process.env,
          ...keyEnvironment(this.keys()),
          ...(settings.hostTokenFile !== "" ? { AGENTLS_HOST_TOKEN_FILE: settings.hostTokenFile } : {}),
          // agentls.host in the environment too: an attached server is then a small relay to a
          // session in the host from its start (docs/host.md), not a whole server of its own.
          ...(settings.host !== undefined ? { AGENTLS_HOST: settings.host } : {}),
        },
      },
    };
    const clientOptions: LanguageClientOptions = {
      // Every file buffer is synced, so the agent reads what the user sees, unsaved text included.
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      // `untrusted`: the server then ignores the workspace's own agentls.json, commands, agents and
      // skills (docs/protocol.md); granting trust restarts the server (extension.ts) without it.
      initializationOptions: () => {
        return initializationOptions(readSettings(this.keys()), vscode.workspace.isTrusted);
      },
      outputChannel: this.stderr,
      errorHandler: this.errorHandler(() => handshaken && this.client === self),
      // A failed handshake is reported once, below (the client would add a popup of its own).
      initializationFailedHandler: () => false,
      middleware: {
        // vscode-languageclient 9 sends VS Code's trigger kind as is (Invoke 0, Automatic 1), but
        // LSP 3.18 counts from 1 (Invoked 1, Automatic 2): the server refuses a 0 as invalid params.
        provideInlineCompletionItems: async (document, position, context, token, next) => {
          const result = await next(document, position, { ...context, triggerKind: lspTriggerKind(context.triggerKind) }, token);
          return this.inlineEdits.present(document, position, result, token);
        },
        executeCommand: (name, args, next) => {
          const handler = this.commandHandler;
          return handler !== undefined && LOCAL_COMMANDS.has(name) ? handler(name, args) : next(name, args);
        },
      },
      // The view shows our own errors; the client's generic popups would say the same twice.
      revealOutputChannelOn: 4,
    };
    const client = new AgentLanguageClient("agentls", "agentls", serverOptions, clientOptions);
    self = client;
    client.registerFeature(new AgentCapability());
    // LSP 3.18's textDocument/inlineCompletion (next edits): in vscode-languageclient 9 it is a
    // proposed feature, and the only one; it registers a provider only if the server announces it.
    client.registerProposedFeatures();
    // Registered before start, so it replaces the client's default handler (also after a restart).
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) => applyAgentEdit(client, params));
    client.onRequest("agent/editorQuery", answerEditorQuery);
    client.onNotification("agent/event", (params: AgentEvent) => this.eventEmitter.fire(params));
    client.onNotification("agent/nextEdit/ready", (params: NextEditReady) => showNextEdit(params));
    client.onDidChangeState((change) => {
      if (change.newState === State.Running) {
        handshaken = true;
        const restarted = this.started;
        this.started = true;
        this.setPhase("running");
        trace("serverInitialized", { restarted, pid: this.pid, extensionHostPid: process.pid });
        this.readyEmitter.fire({ restarted });
      } else if (change.newState === State.Starting && this.started) {
        this.setPhase("restarting");
      }
    });
    this.client = client;
    this.stopping = false;
    this.setPhase(this.started ? "restarting" : "starting");
    this.stderr.reset();
    client.reportsStart = true;
    try {
      await client.start();
      // A server that exits during the handshake can leave start() resolved with nothing
      // (vscode-languageclient 9 drops its pending start when the connection closes).
      if (client.state !== State.Running) throw new Error("the server exited during the handshake");
    } catch (err) {
      trace("serverStartFailed", { error: String(err) });
      // One message with what the server said (its arguments may be wrong), not a restart loop.
      const said = this.stderr.last();
      const shown = [command, ...settings.serverArgs].join(" ");
      // A server that exits at once makes the client's first write fail ("write EPIPE"): say what happened.
      const why = said ? `it said "${said}"` : /EPIPE|exited during the handshake/.test(String(err)) ? "it exited before answering" : String(err);
      this.problem = `the server (${shown}) did not start: ${why}. See the agentls output.`;
      trace("serverFailed", { problem: this.problem });
      this.setPhase("missing");
      this.onMissing(this.problem);
    } finally {
      client.reportsStart = false;
    }
  }

  /** `restartable`: the server finished its handshake and its client is still the current one. */
  private errorHandler(restartable: () => boolean): ErrorHandler {
    return {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
      closed: (): CloseHandlerResult => {
        if (this.stopping || !restartable()) return { action: CloseAction.DoNotRestart, handled: true };
        const now = Date.now();
        this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
        if (this.restarts.length >= MAX_RESTARTS) {
          this.setPhase("stopped");
          const message = `agentls: the server stopped ${MAX_RESTARTS} times in 3 minutes; not restarting it. See the agentls output.`;
          return { action: CloseAction.DoNotRestart, message };
        }
        this.restarts.push(now);
        trace("serverRestart", { count: this.restarts.length });
        this.setPhase("restarting");
        void vscode.window.showWarningMessage("agentls: the server stopped; restarting it.");
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  /**
   * Stop and start again (a setting the server reads changed, or the user asked). One at a time:
   * granting workspace trust also changes the settings, and two restarts at once started two
   * servers that shared one client's state.
   */
  restart(): Promise<void> {
    return this.restarter.request();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.stopping = true;
    if (client !== undefined && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`stopping the server: ${String(err)}`);
      }
    }
    this.setPhase("stopped");
  }

  /** The process id of the running server, as its initialize answer says (tests kill it to check the restart). */
  get pid(): number | undefined {
    const experimental = this.client?.initializeResult?.capabilities.experimental as { agent?: { processId?: unknown } } | undefined;
    const pid = experimental?.agent?.processId;
    return typeof pid === "number" ? pid : undefined;
  }

  async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      throw new Error("the agentls server is not running");
    }
    // Passing an undefined token would make vscode-jsonrpc send the params as a list [params, null].
    return token === undefined ? client.sendRequest<R>(method, params) : client.sendRequest<R>(method, params, token);
  }

  /**
   * The agent's config from the settings, to the running server (`workspace/didChangeConfiguration`,
   * `settings.agentls.config`: the layer above `initializationOptions.config`). Requests sent after
   * it are answered under the new config.
   */
  async sendConfig(): Promise<void> {
    const client = this.client;
    if (client === undefined || client.state !== State.Running) return; // a starting server reads them itself
    trace("settingsSent");
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { agentls: { config: readSettings(this.keys()).config } } });
  }

  notify(method: string, params: unknown): void {
    if (this.client?.state === State.Running) void this.client.sendNotification(method, params);
  }

  dispose(): void {
    void this.stop();
    this.inlineEdits.dispose();
    this.eventEmitter.dispose();
    this.readyEmitter.dispose();
    this.phaseEmitter.dispose();
  }
}
