// The session's background work for the chat view's host side (docs/protocol.md, agent/background/*):
// the list for the view's snapshot, and the view's stop, message and shell-stop intents.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { BackgroundAgent, BackgroundListResult, BackgroundShell } from "../../shared/protocol";
import { trace } from "../trace";

const METHOD_NOT_FOUND = -32601;

/** The session's background sub-agents and shells (undefined: a server without them, or it failed). */
export async function listBackground(client: AgentClient, sessionID: string): Promise<BackgroundListResult | undefined> {
  try {
    return await client.request<BackgroundListResult>("agent/background/list", { sessionID });
  } catch (err) {
    if ((err as { code?: number }).code !== METHOD_NOT_FOUND) trace("backgroundUnavailable", { error: String(err) });
    return undefined;
  }
}

export async function stopBackground(client: AgentClient, sessionID: string): Promise<void> {
  const agent = await client.request<BackgroundAgent>("agent/background/stop", { sessionID });
  trace("backgroundStopped", { sessionID, status: agent.status });
}

/** Ask for a message in an input box and queue it into the sub-agent (nothing when the user cancels). */
export async function messageBackground(client: AgentClient, sessionID: string, description: string | undefined): Promise<void> {
  const text = await vscode.window.showInputBox({
    title: `Message to the background sub-agent${description ? `: ${description}` : ""}`,
    prompt: "Its next step sees it.",
    ignoreFocusOut: true,
  });
  if (text === undefined || text.trim() === "") return;
  await client.request("agent/background/message", { sessionID, text });
  trace("backgroundMessaged", { sessionID });
}

export async function stopShell(client: AgentClient, shellID: string): Promise<void> {
  const shell = await client.request<BackgroundShell>("agent/background/shell/stop", { shellID });
  trace("shellStopped", { shellID, status: shell.status });
}
