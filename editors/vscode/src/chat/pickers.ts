// The session's mode (Ask / Auto-accept / Plan) and effort (how hard the model thinks), read and set
// through `agent/session/mode` and `agent/session/effort` (docs/protocol.md). The header's pickers, the
// `/mode` and `/effort` commands and the palette commands `agentls.mode` / `agentls.effort` (which
// the language client registers, as the server offers them) end here;
// the view follows the `session.mode` / `session.effort` events that answer a change.
import * as vscode from "vscode";
import type { AgentClient } from "../client/server";
import type { EffortInfo, ModeInfo } from "../../shared/protocol";
import { trace } from "../trace";
import type { ChatHost } from "./host";

/** The error of a request the server does not have (an older agentls): its picker stays hidden. */
const METHOD_NOT_FOUND = -32601;

// `sessionId` is the name the requests were agreed with; `sessionID` is every other request's. No
// session: what a new session starts with (an empty chat shows it before it has a session).
const ref = (sessionID: string | undefined): Record<string, string> => (sessionID === undefined ? {} : { sessionID, sessionId: sessionID });

async function optional<T>(request: Promise<T>, what: string): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if ((err as { code?: number }).code !== METHOD_NOT_FOUND) trace("controlUnavailable", { what, error: String(err) });
    return undefined;
  }
}

/** The session's mode and effort for the snapshot, or a new session's (undefined where the server has no answer). */
export async function sessionControls(client: AgentClient, sessionID: string | undefined, model?: string): Promise<{ mode?: ModeInfo; effort?: EffortInfo }> {
  const [mode, effort] = await Promise.all([
    optional(client.request<ModeInfo>("agent/session/mode", ref(sessionID)), "mode"),
    optionalEffort(client, sessionID, model),
  ]);
  return { mode, effort };
}

/**
 * The session's effort and the levels of `model` (the one picked for the next prompt; none: the
 * session's last), undefined where the server has no answer.
 */
export function optionalEffort(client: AgentClient, sessionID: string | undefined, model?: string): Promise<EffortInfo | undefined> {
  return optional(client.request<EffortInfo>("agent/session/effort", withModel(ref(sessionID), model)), "effort");
}

function withModel<T extends object>(params: T, model: string | undefined): T & { model?: string } {
  return model === undefined ? params : { ...params, model };
}

/**
 * Store a choice in the chat's session. An empty chat has none yet: choosing is what makes it (with
 * the choice set before the chat shows it), so a chat the user only looked at leaves no session.
 */
async function choose(view: ChatHost, set: (sessionID: string) => Promise<unknown>): Promise<void> {
  const existing = view.sessionID;
  if (existing !== undefined) {
    await set(existing);
    return;
  }
  let applied = false;
  const sessionID = await view.currentSession(async (id) => {
    await set(id);
    applied = true;
  });
  if (!applied) await set(sessionID); // made meanwhile by a prompt sent at the same time
}

/** Set the mode; with none given, pick it from the session's modes (a quick pick). */
export async function setMode(view: ChatHost, mode?: string): Promise<void> {
  if (!mode) {
    const current = await view.client.request<ModeInfo>("agent/session/mode", ref(view.sessionID));
    const items = current.modes.map((m) => ({ label: m.name, description: m.id === current.mode ? "current" : "", detail: m.description, id: m.id }));
    const picked = await vscode.window.showQuickPick(items, { title: "agentls: mode of this session", placeHolder: "Ask before edits, auto-accept them, or plan" });
    if (picked === undefined) return;
    mode = picked.id;
  }
  const chosen = mode;
  await choose(view, (sessionID) => view.client.request<ModeInfo>("agent/session/mode", { ...ref(sessionID), mode: chosen }));
}

/** Set the effort; with none given, pick one of the levels the session's model supports. */
export async function setEffort(view: ChatHost, effort?: string): Promise<void> {
  const sessionID = view.sessionID;
  if (!effort) {
    const current = await view.client.request<EffortInfo>("agent/session/effort", withModel(ref(sessionID), view.pickedModel));
    if (current.levels.length === 0) {
      void vscode.window.showInformationMessage("agentls: this session's model has no effort (thinking) setting.");
      return;
    }
    const levels = ["default", ...current.levels.filter((l) => l !== "default")];
    const items = levels.map((l) => ({ label: l, description: l === current.effort ? "current" : l === "default" ? "the model's configured options" : "" }));
    const picked = await vscode.window.showQuickPick(items, { title: "agentls: effort of this session", placeHolder: "How hard the model thinks" });
    if (picked === undefined) return;
    effort = picked.label;
  }
  // Checked against the levels of the model the next prompt runs on, not the last one's.
  const chosen = effort;
  await choose(view, (id) => view.client.request<EffortInfo>("agent/session/effort", withModel({ ...ref(id), effort: chosen }, view.pickedModel)));
}

/**
 * `agentls.mode` / `agentls.effort` from the palette (or a keybinding, with the value as argument).
 * The server offers these names to stock clients (workspace/executeCommand), so the language client
 * registers them; its middleware hands them here, and the view's quick pick and pickers answer
 * instead of the server's plain message. Undefined for any other command.
 */
export function pickerCommand(view: ChatHost, command: string, args: unknown[]): Promise<void> | undefined {
  const value = typeof args[0] === "string" ? args[0] : undefined;
  const run = command === "agentls.mode" ? () => setMode(view, value) : command === "agentls.effort" ? () => setEffort(view, value) : undefined;
  if (run === undefined) return undefined;
  return run().catch((err: unknown) => {
    void vscode.window.showErrorMessage(`agentls: could not set the ${command.slice("agentls.".length)}: ${(err as Error).message ?? String(err)}`);
  });
}
