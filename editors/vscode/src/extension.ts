// Activation: the server client, the chat view, the diff documents, the status bar and the commands.
import * as vscode from "vscode";
import { Actions } from "./chat/actions";
import { ChatView, VIEW_ID } from "./chat/view";
import { panelCommands, SessionPanels, showSession } from "./chat/panel";
import { Notifier } from "./chat/notify";
import { Showing } from "./chat/showing";
import { pickerCommand } from "./chat/pickers";
import { watchNextEdits } from "./client/nextEdits";
import { AgentClient, NOT_FOUND } from "./client/server";
import { registerCommands } from "./commands";
import { DiffDocuments, SCHEME } from "./diff/provider";
import { affectsConfig, affectsProcess } from "./settings";
import { runCodeAction } from "./chat/codeActions";
import { ServerInstaller } from "./install/offer";
import { ProviderKeys } from "./keys";
import { setApiKey } from "./chat/apiKey";
import { statusItem } from "./status";
import { trace } from "./trace";
import { registerReview } from "./review";
import { PlanReviews } from "./plan/review";

let client: AgentClient | undefined;

/** One notification that says why there is no server: a wrong setting (named), or none found. */
function missingServer(problem: string): void {
  void vscode.window
    .showErrorMessage(`agentls: ${problem}`, "Open Settings")
    .then((choice) => {
      if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "agentls.server.path");
    });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  trace("activated", { trusted: vscode.workspace.isTrusted });
  const output = vscode.window.createOutputChannel("agentls");
  const keys = new ProviderKeys(context);
  await keys.load();
  const installer = new ServerInstaller(context, output);
  // No server anywhere: offer the one this extension carries (a wrong setting is still named as such).
  const onMissing = (problem: string): void =>
    problem === NOT_FOUND && installer.canInstall ? installer.offer(problem, () => agent.restart()) : missingServer(problem);
  const agent = new AgentClient(output, onMissing, () => keys.all);
  agent.managedServer = () => installer.location();
  client = agent;
  const diffs = new DiffDocuments();
  const plans = new PlanReviews(agent);
  const view = new ChatView(context, client, (v) => new Actions(v, diffs, keys));
  const showing: Showing = new Showing(agent, (): ChatView[] => [view, ...panels.views]);
  const panels = new SessionPanels(context, client, (v) => new Actions(v, diffs, keys), showing);
  client.commandHandler = (command, args) => pickerCommand(view, command, args) ?? runCodeAction(view, command, args);
  context.subscriptions.push(
    output,
    client,
    diffs,
    view,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, diffs),
    vscode.window.registerWebviewViewProvider(VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    statusItem(view),
    ...registerCommands(view, diffs),
    ...registerReview(context, view, diffs),
    plans,
    vscode.commands.registerCommand("agentls.setApiKey", (provider?: string) => setApiKey(agent, keys, typeof provider === "string" ? provider : undefined)),
    panels,
    showing,
    showing.watch(view),
    ...panelCommands(view, panels),
    new Notifier(view, () => [view, ...panels.views], (sessionID) => showSession(view, panels, sessionID)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Another executable or arguments need a new process, once the running turn (if any) has
      // ended; the agent's config goes to the running server, which applies it from the next turn.
      if (affectsProcess(event)) void restartWhenIdle(view);
      else if (affectsConfig(event)) void applySettings(view);
    }),
    // Trusted now: the workspace's own .venv/bin/agentls and server settings may be used.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restartWhenIdle(view)),
    watchNextEdits(),
  );
  await agent.start();
}

async function restartWhenIdle(view: ChatView): Promise<void> {
  if (view.status.type !== "idle") {
    await new Promise<void>((resolve) => {
      const sub = view.onDidChange(() => {
        if (view.status.type === "idle") {
          sub.dispose();
          resolve();
        }
      });
    });
  }
  trace("settingsRestart");
  await view.client.restart();
}

async function applySettings(view: ChatView): Promise<void> {
  try {
    await view.client.sendConfig();
    if (view.client.running) await view.sendConfig();
  } catch (err) {
    view.notice(`could not apply the new settings: ${String(err)}`);
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
