// Activation: the server client, the chat view, the diff documents, the status bar and the commands.
import * as vscode from "vscode";
import { Actions } from "./chat/actions";
import { ChatView, VIEW_ID } from "./chat/view";
import { AgentClient } from "./client/server";
import { registerCommands } from "./commands";
import { DiffDocuments, SCHEME } from "./diff/provider";
import { affectsConfig, affectsProcess } from "./settings";
import { statusItem } from "./status";
import { trace } from "./trace";

let client: AgentClient | undefined;

function missingServer(): void {
  void vscode.window
    .showErrorMessage(
      "agentls: the `agentls` server was not found (looked at the agentls.server.path setting, the workspace's .venv and PATH). " +
        "Install it with `pip install agentls` (or `./scripts/setup` in an agentls checkout), or set agentls.server.path.",
      "Open Settings",
    )
    .then((choice) => {
      if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "agentls.server.path");
    });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  trace("activated");
  const output = vscode.window.createOutputChannel("agentls");
  client = new AgentClient(output, missingServer);
  const diffs = new DiffDocuments();
  const view = new ChatView(context, client, (v) => new Actions(v, diffs));
  context.subscriptions.push(
    output,
    client,
    diffs,
    view,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, diffs),
    vscode.window.registerWebviewViewProvider(VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    statusItem(view),
    ...registerCommands(view),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Another executable or arguments need a new process, once the running turn (if any) has
      // ended; the agent's config goes to the running server, which applies it from the next turn.
      if (affectsProcess(event)) void restartWhenIdle(view);
      else if (affectsConfig(event)) void applySettings(view);
    }),
  );
  await client.start();
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
